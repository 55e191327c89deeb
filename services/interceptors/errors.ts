import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ERROR_CODES, ERROR_DOMAIN, type ErrorCode } from "../errors/codes.js";
import { CofferError } from "../errors/coffer-error.js";
import { kLog } from "../context.js";

/** Header (gRPC trailer) that repeats the stable code for clients that ignore error details. */
export const ERROR_CODE_HEADER = "coffer-error-code";

export function toConnectError(code: ErrorCode, message: string, cause?: unknown): ConnectError {
  return new ConnectError(
    message,
    ERROR_CODES[code].connect,
    { [ERROR_CODE_HEADER]: code },
    [{ desc: ErrorInfoSchema, value: { reason: code, domain: ERROR_DOMAIN } }],
    cause,
  );
}

/**
 * Outermost core interceptor: every failure leaves the core as a ConnectError
 * carrying a stable code. Anything that is not a deliberate CofferError is
 * logged with its cause and reported as INTERNAL_ERROR with a generic message,
 * so no internals (SQL, stack traces, secrets) reach a caller.
 */
export const errorInterceptor: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (e) {
    if (e instanceof CofferError) throw toConnectError(e.code, e.message, e);
    if (e instanceof ConnectError && e.findDetails(ErrorInfoSchema).length > 0) throw e;
    if (e instanceof ConnectError && e.code === Code.Canceled) throw e;
    req.contextValues.get(kLog)?.error({ err: e, rpc: req.method.name }, "unexpected error in RPC");
    throw toConnectError("INTERNAL_ERROR", "Internal error", e);
  }
};
