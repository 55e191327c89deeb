import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ConnectionException } from "@mikro-orm/core";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ERROR_CODES, ERROR_DOMAIN, type ErrorCode } from "../../common/errors.js";
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

/** Socket errors and the PostgreSQL classes that mean "the server is gone or refusing us". */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/** True when a failure (or anything in its cause chain) is the database being unreachable, not a bug. */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof ConnectionException) return true;
    const err = cur as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (typeof err.code === "string" && UNAVAILABLE_CODES.has(err.code)) return true;
    if (err.name === "KnexTimeoutError") return true;
    if (
      typeof err.message === "string" &&
      /Connection terminated|not currently accepting connections/.test(err.message)
    )
      return true;
    cur = err.cause;
  }
  return false;
}

/**
 * Outermost core interceptor: every failure leaves the core as a ConnectError
 * carrying a stable code. Anything that is not a deliberate CofferError is
 * logged with its cause and reported as INTERNAL_ERROR (UNAVAILABLE when the
 * database is unreachable) with a generic message,
 * so no internals (SQL, stack traces, secrets) reach a caller.
 */
export const errorInterceptor: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (e) {
    if (e instanceof CofferError) throw toConnectError(e.code, e.message, e);
    if (e instanceof ConnectError && e.findDetails(ErrorInfoSchema).length > 0) throw e;
    if (e instanceof ConnectError && e.code === Code.Canceled) throw e;
    if (isDatabaseUnavailable(e)) {
      req.contextValues.get(kLog)?.error({ err: e, rpc: req.method.name }, "database unavailable");
      throw toConnectError("UNAVAILABLE", "The database is not reachable; try again shortly", e);
    }
    req.contextValues.get(kLog)?.error({ err: e, rpc: req.method.name }, "unexpected error in RPC");
    throw toConnectError("INTERNAL_ERROR", "Internal error", e);
  }
};
