import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ConnectionException } from "@mikro-orm/core";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ERROR_CODES, ERROR_DOMAIN, type ErrorCode } from "../../common/errors.js";
import { CofferError } from "../errors/coffer-error.js";
import { kEntry, kLog } from "../context.js";

/** Header (gRPC trailer) that repeats the stable code for clients that ignore error details. */
export const ERROR_CODE_HEADER = "coffer-error-code";

/** Header (gRPC trailer) telling a rate-limited caller how many seconds to wait. */
export const RETRY_AFTER_HEADER = "retry-after";

export function toConnectError(
  code: ErrorCode,
  message: string,
  cause?: unknown,
  retryAfterSeconds?: number,
): ConnectError {
  const metadata: Record<string, string> = { [ERROR_CODE_HEADER]: code };
  if (retryAfterSeconds !== undefined) metadata[RETRY_AFTER_HEADER] = String(retryAfterSeconds);
  return new ConnectError(
    message,
    ERROR_CODES[code].connect,
    metadata,
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

/**
 * pg's words for a connection that died under it (a restart, a dropped socket) or never opened in time
 * ("timeout expired" is pg's own connect timeout, as a statement sees it when its pool had to open a connection).
 */
const DEAD_CONNECTION =
  /Connection terminated|not currently accepting connections|is not queryable|timeout exceeded when trying to connect|^timeout expired$/;

/** SQLSTATE query_canceled: the statement ran past statement_timeout (COFFER_STATEMENT_TIMEOUT_MS). */
const STATEMENT_TIMEOUT = "57014";

/**
 * What a failure (or anything in its cause chain) says about the database:
 * unreachable, out of time for this statement, or neither (then it is a bug).
 */
export function databaseTrouble(e: unknown): "unreachable" | "timeout" | null {
  for (let cur = e, depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof ConnectionException) return "unreachable";
    const err = cur as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (err.code === STATEMENT_TIMEOUT) return "timeout";
    if (typeof err.code === "string" && UNAVAILABLE_CODES.has(err.code)) return "unreachable";
    if (err.name === "KnexTimeoutError") return "unreachable";
    if (typeof err.message === "string" && DEAD_CONNECTION.test(err.message)) return "unreachable";
    cur = err.cause;
  }
  return null;
}

/**
 * Outermost core interceptor: every failure leaves the core as a ConnectError
 * carrying a stable code. Anything that is not a deliberate CofferError is
 * logged with its cause and reported as INTERNAL_ERROR (UNAVAILABLE when the
 * database is unreachable) with a generic message,
 * so no internals (SQL, stack traces, secrets) reach a caller.
 */
export const errorInterceptor: Interceptor = (next) => async (req) => {
  const entry = req.contextValues.get(kEntry);
  if (entry) entry.reached = true;
  try {
    // A failure the entry guard found before Connect read the request (services/entry.ts).
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrown as caught, mapped below
    if (entry?.failure !== undefined) throw entry.failure;
    return await next(req);
  } catch (e) {
    if (e instanceof CofferError) throw toConnectError(e.code, e.message, e, e.retryAfterSeconds);
    if (e instanceof ConnectError && e.findDetails(ErrorInfoSchema).length > 0) throw e;
    if (e instanceof ConnectError && e.code === Code.Canceled) throw e;
    // Coffer's own code raises CofferErrors; a bare ConnectError in a streaming call is Connect
    // failing to read the request stream (a unary request is read before the interceptors).
    if (e instanceof ConnectError && req.stream) {
      throw toConnectError(
        "INVALID_BODY",
        `The request could not be read as a ${req.method.input.typeName}: ${e.rawMessage}`,
        e,
      );
    }
    const trouble = databaseTrouble(e);
    if (trouble === "unreachable") {
      req.contextValues.get(kLog)?.error({ err: e, rpc: req.method.name }, "database unavailable");
      throw toConnectError("UNAVAILABLE", "The database is not reachable; try again shortly", e);
    }
    if (trouble === "timeout") {
      req.contextValues.get(kLog)?.warn({ err: e, rpc: req.method.name }, "database statement timed out");
      throw toConnectError(
        "UNAVAILABLE",
        "The database did not finish this request in time (statement timeout); try again, or ask for less",
        e,
      );
    }
    req.contextValues.get(kLog)?.error({ err: e, rpc: req.method.name }, "unexpected error in RPC");
    throw toConnectError("INTERNAL_ERROR", "Internal error", e);
  }
};
