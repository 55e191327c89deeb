import { Code } from "@connectrpc/connect";

/**
 * The one table of stable error codes. A code exists if and only if it is
 * listed here; each maps to the Connect code the core raises and the HTTP
 * status the REST gateway answers with. Codes are contracts: never rename.
 */
export const ERROR_CODES = {
  MISSING_CREDENTIALS: { connect: Code.Unauthenticated, http: 401 },
  INVALID_API_KEY: { connect: Code.Unauthenticated, http: 401 },
  REVOKED_API_KEY: { connect: Code.Unauthenticated, http: 401 },
  INVALID_CREDENTIALS: { connect: Code.Unauthenticated, http: 401 },
  INSUFFICIENT_SCOPE: { connect: Code.PermissionDenied, http: 403 },
  FORBIDDEN: { connect: Code.PermissionDenied, http: 403 },
  NOT_FOUND: { connect: Code.NotFound, http: 404 },
  METHOD_NOT_ALLOWED: { connect: Code.Unimplemented, http: 405 },
  VALIDATION_ERROR: { connect: Code.InvalidArgument, http: 400 },
  INVALID_PARAMETER: { connect: Code.InvalidArgument, http: 400 },
  INVALID_BODY: { connect: Code.InvalidArgument, http: 400 },
  INVALID_CURSOR: { connect: Code.InvalidArgument, http: 400 },
  EXPIRED: { connect: Code.FailedPrecondition, http: 400 },
  DENIED: { connect: Code.FailedPrecondition, http: 400 },
  INVALID_DEVICE_CODE: { connect: Code.NotFound, http: 404 },
  CONFLICT: { connect: Code.AlreadyExists, http: 409 },
  SLUG_CONFLICT: { connect: Code.AlreadyExists, http: 409 },
  PAYLOAD_TOO_LARGE: { connect: Code.ResourceExhausted, http: 413 },
  RATE_LIMITED: { connect: Code.ResourceExhausted, http: 429 },
  PROVIDER_ERROR: { connect: Code.Unavailable, http: 502 },
  PROVIDER_NOT_CONFIGURED: { connect: Code.FailedPrecondition, http: 400 },
  INTERNAL_ERROR: { connect: Code.Internal, http: 500 },
  UNAVAILABLE: { connect: Code.Unavailable, http: 503 },
  UNSUPPORTED_MEDIA_TYPE: { connect: Code.InvalidArgument, http: 415 },
  UPSTREAM_TIMEOUT: { connect: Code.DeadlineExceeded, http: 504 },
  INVALID_REQUEST: { connect: Code.InvalidArgument, http: 400 },
  HEADERS_TOO_LARGE: { connect: Code.ResourceExhausted, http: 431 },
  URI_TOO_LONG: { connect: Code.ResourceExhausted, http: 414 },
  REQUEST_TIMEOUT: { connect: Code.DeadlineExceeded, http: 408 },
  ORIGIN_MISMATCH: { connect: Code.PermissionDenied, http: 403 },
  INVALID_HOST: { connect: Code.PermissionDenied, http: 403 },
  INVALID_SIGNATURE: { connect: Code.Unauthenticated, http: 401 },
  ENCRYPTION_KEY_MISSING: { connect: Code.Internal, http: 500 },
} as const satisfies Record<string, { connect: Code; http: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** The fallback when a Connect error carries no Coffer code (e.g. a transport failure). */
export const CODE_FOR_CONNECT: Partial<Record<Code, ErrorCode>> = {
  [Code.Unauthenticated]: "INVALID_API_KEY",
  [Code.PermissionDenied]: "FORBIDDEN",
  [Code.NotFound]: "NOT_FOUND",
  [Code.InvalidArgument]: "VALIDATION_ERROR",
  [Code.AlreadyExists]: "CONFLICT",
  [Code.ResourceExhausted]: "RATE_LIMITED",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DeadlineExceeded]: "UPSTREAM_TIMEOUT",
  [Code.Unimplemented]: "NOT_FOUND",
};

/** The ErrorInfo domain Coffer's codes live in. */
export const ERROR_DOMAIN = "coffer";
