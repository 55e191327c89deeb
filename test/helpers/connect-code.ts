import { Code } from "@connectrpc/connect";
import type { ErrorCode } from "../../common/errors.js";

/**
 * The Connect code the core raises for each error code, written out here
 * rather than read from the app's own table (as HTTP_STATUS is), so a change
 * to a mapping fails the tests. Record<ErrorCode, …> makes a code added to the
 * app without a Connect code here a type error.
 */
export const CONNECT_CODE: Record<ErrorCode, Code> = {
  MISSING_CREDENTIALS: Code.Unauthenticated,
  INVALID_API_KEY: Code.Unauthenticated,
  REVOKED_API_KEY: Code.Unauthenticated,
  INVALID_CREDENTIALS: Code.Unauthenticated,
  INSUFFICIENT_SCOPE: Code.PermissionDenied,
  FORBIDDEN: Code.PermissionDenied,
  NOT_FOUND: Code.NotFound,
  METHOD_NOT_ALLOWED: Code.Unimplemented,
  VALIDATION_ERROR: Code.InvalidArgument,
  INVALID_PARAMETER: Code.InvalidArgument,
  INVALID_BODY: Code.InvalidArgument,
  INVALID_CURSOR: Code.InvalidArgument,
  EXPIRED: Code.FailedPrecondition,
  DENIED: Code.FailedPrecondition,
  INVALID_DEVICE_CODE: Code.NotFound,
  CONFLICT: Code.AlreadyExists,
  SLUG_CONFLICT: Code.AlreadyExists,
  PAYLOAD_TOO_LARGE: Code.ResourceExhausted,
  RATE_LIMITED: Code.ResourceExhausted,
  PROVIDER_ERROR: Code.Unavailable,
  PROVIDER_NOT_CONFIGURED: Code.FailedPrecondition,
  INTERNAL_ERROR: Code.Internal,
  UNAVAILABLE: Code.Unavailable,
  UNSUPPORTED_MEDIA_TYPE: Code.InvalidArgument,
  NOT_ACCEPTABLE: Code.InvalidArgument,
  UPSTREAM_TIMEOUT: Code.DeadlineExceeded,
  INVALID_REQUEST: Code.InvalidArgument,
  HEADERS_TOO_LARGE: Code.ResourceExhausted,
  URI_TOO_LONG: Code.ResourceExhausted,
  REQUEST_TIMEOUT: Code.DeadlineExceeded,
  ORIGIN_MISMATCH: Code.PermissionDenied,
  INVALID_HOST: Code.PermissionDenied,
  INVALID_SIGNATURE: Code.Unauthenticated,
  ENCRYPTION_KEY_MISSING: Code.Internal,
};

/**
 * What a gateway makes of a Connect error that carries no Coffer code
 * (a transport failure, a bare error from Connect itself); the codes not
 * listed become INTERNAL_ERROR.
 */
export const CODE_FOR_BARE_CONNECT: [Code, ErrorCode][] = [
  [Code.Unauthenticated, "INVALID_API_KEY"],
  [Code.PermissionDenied, "FORBIDDEN"],
  [Code.NotFound, "NOT_FOUND"],
  [Code.InvalidArgument, "VALIDATION_ERROR"],
  [Code.AlreadyExists, "CONFLICT"],
  [Code.ResourceExhausted, "RATE_LIMITED"],
  [Code.Unavailable, "UNAVAILABLE"],
  [Code.DeadlineExceeded, "UPSTREAM_TIMEOUT"],
  [Code.Unimplemented, "NOT_FOUND"],
];
