import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { CODE_FOR_CONNECT, ERROR_CODES, ERROR_DOMAIN, isErrorCode, type ErrorCode } from "../../common/errors.js";

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string };
}

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  /** RATE_LIMITED: seconds until the caller may try again (the core's retry-after), sent as Retry-After. */
  retryAfter?: number;
}

/** What a gateway logs with: fastify's request logger (which adds reqId), or the stdio server's. */
export interface FailureLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const GENERIC: Partial<Record<ErrorCode, string>> = {
  INTERNAL_ERROR: "Internal error",
  UNAVAILABLE: "The Coffer core is not reachable",
  UPSTREAM_TIMEOUT: "The Coffer core did not answer in time",
};

/** Node's errno codes for "the other side is not there" (or went away mid-call); anything else unknown is our bug. */
const SOCKET_FAILURE = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE)\b/;
/** Node's codes for an HTTP/2 session or stream that broke under a call: the core died or dropped it. */
const STREAM_FAILURE = /^(ERR_HTTP2_\w+|ERR_STREAM_DESTROYED|ERR_STREAM_PREMATURE_CLOSE)$/;
/** connect-node's message for a stream the core reset (its h2 stack failed, or it shut down under the call). */
const STREAM_RESET = /^http\/2 stream closed with error code /;

/** True when the call failed because the connection to the core failed, not because the core said no. */
function isTransportFailure(ce: ConnectError): boolean {
  for (let cur: unknown = ce.cause, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const errno = (cur as { code?: unknown }).code;
    if (typeof errno === "string" && (SOCKET_FAILURE.test(errno) || STREAM_FAILURE.test(errno))) return true;
  }
  return SOCKET_FAILURE.test(ce.rawMessage) || STREAM_RESET.test(ce.rawMessage);
}

/** The Coffer code the core attached to a failure (ErrorInfo.reason in Coffer's domain), if any. */
function cofferCode(ce: ConnectError): ErrorCode | undefined {
  const info = ce.findDetails(ErrorInfoSchema).find((d) => d.domain === ERROR_DOMAIN && isErrorCode(d.reason));
  return info && isErrorCode(info.reason) ? info.reason : undefined;
}

export function envelope(code: ErrorCode, message: string): MappedError {
  return { status: ERROR_CODES[code].http, body: { error: { code, message } } };
}

/**
 * The one mapper from a core failure to what a gateway shows: the stable code
 * the core attached (ErrorInfo.reason) and its message. A failure without a
 * Coffer code gets a generic message, so no internal detail ever reaches a
 * caller: a deadline that ran out is UPSTREAM_TIMEOUT, a core that is down or
 * died under the call is UNAVAILABLE, anything else follows CODE_FOR_CONNECT.
 */
export function mapError(e: unknown): MappedError {
  const ce = ConnectError.from(e);
  const given = cofferCode(ce);
  if (given) {
    const mapped = envelope(given, ce.rawMessage);
    const retryAfter = ce.metadata.get("retry-after");
    if (retryAfter && /^\d{1,6}$/.test(retryAfter)) mapped.retryAfter = Number(retryAfter);
    return mapped;
  }
  const code: ErrorCode =
    ce.code === Code.Unavailable || isTransportFailure(ce)
      ? "UNAVAILABLE"
      : (CODE_FOR_CONNECT[ce.code] ?? "INTERNAL_ERROR");
  return envelope(code, GENERIC[code] ?? `Request failed (${code})`);
}

/**
 * mapError, and a log line for a 5xx this gateway produced, with its cause
 * (the request id comes with the logger). A 5xx the core chose carries its
 * code and was logged by the core, where its cause is.
 */
export function mapAndLog(e: unknown, log: FailureLog): MappedError {
  const mapped = mapError(e);
  if (mapped.status < 500 || cofferCode(ConnectError.from(e))) return mapped;
  const code = mapped.body.error.code;
  if (code === "INTERNAL_ERROR") log.error({ err: e, code }, "unexpected failure calling the core");
  else log.warn({ err: e, code }, code === "UPSTREAM_TIMEOUT" ? "the core did not answer in time" : "core unreachable");
  return mapped;
}
