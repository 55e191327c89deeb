import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { CODE_FOR_CONNECT, ERROR_CODES, ERROR_DOMAIN, isErrorCode, type ErrorCode } from "../../common/errors.js";

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string };
}

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
}

const GENERIC: Partial<Record<ErrorCode, string>> = {
  INTERNAL_ERROR: "Internal error",
  UNAVAILABLE: "The Coffer core is not reachable",
};

/** Node's errno codes for "the other side is not there"; anything else unknown is our own bug. */
const SOCKET_FAILURE = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE)\b/;

function isSocketFailure(ce: ConnectError): boolean {
  const errno = (ce.cause as { code?: unknown } | undefined)?.code;
  return (typeof errno === "string" && SOCKET_FAILURE.test(errno)) || SOCKET_FAILURE.test(ce.rawMessage);
}

export function envelope(code: ErrorCode, message: string): MappedError {
  return { status: ERROR_CODES[code].http, body: { error: { code, message } } };
}

/**
 * The one mapper from a core failure to what a gateway shows: the stable code
 * the core attached (ErrorInfo.reason) and its message. A failure without a
 * Coffer code (core down, transport error) gets a generic message, so no
 * internal detail ever reaches a caller.
 */
export function mapError(e: unknown): MappedError {
  const ce = ConnectError.from(e);
  const info = ce.findDetails(ErrorInfoSchema).find((d) => d.domain === ERROR_DOMAIN && isErrorCode(d.reason));
  if (info && isErrorCode(info.reason)) return envelope(info.reason, ce.rawMessage);
  const code: ErrorCode =
    ce.code === Code.Unavailable || (ce.code === Code.Unknown && isSocketFailure(ce))
      ? "UNAVAILABLE"
      : (CODE_FOR_CONNECT[ce.code] ?? "INTERNAL_ERROR");
  return envelope(code, GENERIC[code] ?? `Request failed (${code})`);
}
