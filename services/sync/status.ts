import type { ConnectionStatus } from "../db/entities/index.js";
import { CofferError } from "../errors/coffer-error.js";
import { databaseTrouble } from "../interceptors/errors.js";
import { CredentialsUnreadable } from "./credentials.js";
import { ProviderError, type ProviderFailure } from "./providers/provider.js";

/**
 * The connection status machine (docs/sync.md, "Connection status"):
 *
 *   active ──sync fails──▶ error ──sync succeeds──▶ active
 *   active/error ──provider asks for a login──▶ pending_reauth ──reauth, then a sync succeeds──▶ active
 *   any ──DELETE──▶ disconnected (final: nothing syncs it again)
 *
 * error_code and error_message say why a connection is in error or
 * pending_reauth, and are null when it is active.
 */
export interface StatusChange {
  status: ConnectionStatus;
  errorCode: string | null;
  errorMessage: string | null;
}

export const HEALTHY: StatusChange = { status: "active", errorCode: null, errorMessage: null };

/** A failed sync, in the terms the status machine and the scheduler act on. */
export interface SyncFailure {
  failure: ProviderFailure | "internal";
  code: string;
  message: string;
}

/** Why a sync failed, from whatever it threw. Messages are safe to show: no secrets, no raw bodies. */
export function classifyFailure(e: unknown): SyncFailure {
  if (e instanceof ProviderError) return { failure: e.failure, code: e.code, message: e.message };
  if (e instanceof CredentialsUnreadable) {
    return { failure: "misconfigured", code: "CREDENTIALS_UNREADABLE", message: e.message };
  }
  if (e instanceof CofferError && (e.code === "ENCRYPTION_KEY_MISSING" || e.code === "PROVIDER_NOT_CONFIGURED")) {
    return { failure: "misconfigured", code: e.code, message: e.message };
  }
  if (databaseTrouble(e) !== null) {
    return { failure: "unavailable", code: "DATABASE_UNAVAILABLE", message: "The database could not be reached" };
  }
  return { failure: "internal", code: "SYNC_FAILED", message: "The sync failed unexpectedly; the core's log says why" };
}

/** Failures worth retrying soon, with backoff: the provider or the bank may answer later. */
export const isTransient = (f: SyncFailure) => f.failure === "unavailable" || f.failure === "rate_limited";

/** The status a failed sync leaves the connection in. */
export function statusAfterFailure(f: SyncFailure): StatusChange {
  const status: ConnectionStatus = f.failure === "reauth_required" ? "pending_reauth" : "error";
  return { status, errorCode: f.code, errorMessage: f.message };
}
