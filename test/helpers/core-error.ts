import { Code, ConnectError } from "@connectrpc/connect";
import { expect } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { ErrorCode } from "../../common/errors.js";
import { CONNECT_CODE } from "./connect-code.js";

export interface CoreFailure {
  connectCode: Code;
  reason: string | undefined;
  header: string | null;
  message: string;
}

/** Awaits a core call that must fail, and returns what a client can see of the failure. */
export async function coreFailure(call: Promise<unknown>): Promise<CoreFailure> {
  let caught: unknown;
  try {
    await call;
  } catch (e) {
    caught = e;
  }
  expect(caught, "the call should have failed").toBeDefined();
  const ce = ConnectError.from(caught);
  const infos = ce.findDetails(ErrorInfoSchema);
  return {
    connectCode: ce.code,
    reason: infos[0]?.reason,
    header: ce.metadata.get("coffer-error-code"),
    message: ce.rawMessage,
  };
}

/**
 * Asserts the stable code on all three channels a client may read: the
 * ErrorInfo reason, the Connect code (the test's own table), and the header.
 */
export async function expectCoreError(call: Promise<unknown>, code: ErrorCode): Promise<CoreFailure> {
  const f = await coreFailure(call);
  expect({ reason: f.reason, connectCode: Code[f.connectCode], header: f.header }).toEqual({
    reason: code,
    connectCode: Code[CONNECT_CODE[code]],
    header: code,
  });
  return f;
}

export const withKey = (key: string) => ({ headers: { "x-api-key": key } });
