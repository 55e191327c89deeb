import type { ErrorCode } from "../../common/errors.js";

/**
 * The HTTP status clients see for each error code, written out here rather
 * than read from the app's own table, so a change to a status fails the tests.
 * Record<ErrorCode, …> makes a code added to the app without a status here a
 * type error.
 */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  MISSING_CREDENTIALS: 401,
  INVALID_API_KEY: 401,
  REVOKED_API_KEY: 401,
  INVALID_CREDENTIALS: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  VALIDATION_ERROR: 400,
  INVALID_PARAMETER: 400,
  INVALID_BODY: 400,
  INVALID_CURSOR: 400,
  EXPIRED: 400,
  DENIED: 400,
  INVALID_DEVICE_CODE: 404,
  CONFLICT: 409,
  SLUG_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  PROVIDER_ERROR: 502,
  PROVIDER_NOT_CONFIGURED: 400,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UPSTREAM_TIMEOUT: 504,
  INVALID_REQUEST: 400,
  HEADERS_TOO_LARGE: 431,
  URI_TOO_LONG: 414,
  REQUEST_TIMEOUT: 408,
  ORIGIN_MISMATCH: 403,
  INVALID_HOST: 403,
  INVALID_SIGNATURE: 401,
  ENCRYPTION_KEY_MISSING: 500,
};
