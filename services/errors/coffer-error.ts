import type { ErrorCode } from "../../common/errors.js";

/**
 * A deliberate, user-facing failure. The message is shown to callers as is,
 * so it must never contain a secret; put internals in `cause` (logged only).
 */
export class CofferError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = "CofferError";
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** RATE_LIMITED: when the caller may try again; REST answers it as Retry-After. */
  readonly retryAfterSeconds: number | undefined;
}

export const notFound = (what: string) => new CofferError("NOT_FOUND", `${what} not found`);
export const validation = (message: string) => new CofferError("VALIDATION_ERROR", message);
