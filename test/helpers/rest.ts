import { expect } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { ErrorCode } from "../../common/errors.js";
import { HTTP_STATUS } from "./http-status.js";

/** Asserts a REST error: the code's HTTP status, JSON, and exactly the {error:{code,message}} envelope. */
export function expectEnvelope(res: LightMyRequestResponse, code: ErrorCode, message?: string | RegExp) {
  expect({ status: res.statusCode, body: res.json() }).toMatchObject({
    status: HTTP_STATUS[code],
    body: { error: { code } },
  });
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const body = res.json<{ error: Record<string, unknown> }>();
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message).not.toBe("");
  // No stack traces or source paths, whatever went wrong.
  expect(res.body).not.toMatch(/\n\s+at |\.ts:\d+|node_modules|\/work\//);
  if (typeof message === "string") expect(body.error.message).toBe(message);
  else if (message) expect(body.error.message).toMatch(message);
  return body.error as { code: string; message: string };
}

export const key = (k: string) => ({ "x-api-key": k });
