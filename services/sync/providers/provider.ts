/**
 * The one contract every data provider implements (Plaid, Teller, SimpleFIN,
 * CSV). A provider client is a real client of the provider's API; it knows
 * nothing about Coffer's database. It normalises what it reads to Coffer's
 * conventions before handing it over:
 *
 * - amounts are exact decimal strings with at most 2 decimals (never JS
 *   floats), positive = money out of the account, negative = money in;
 * - dates are `YYYY-MM-DD`;
 * - every id is the provider's own (account ids and transaction ids as the
 *   provider sends them).
 *
 * The sync engine (services/sync) owns everything else: storing credentials
 * encrypted, committing each page atomically with its cursor, de-duplicating,
 * connection status, scheduling. The one provider whose input Coffer keeps
 * itself (CSV: its files are csv_imports rows) reads it through the call's
 * context.
 */

import type { Em } from "../../db/orm.js";

export const PROVIDER_NAMES = ["plaid", "teller", "simplefin", "csv"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** How one credentials field looks (GET /providers/{name} `credentials_schema`). */
export interface CredentialField {
  type: "string" | "boolean" | "integer" | "object";
  required: boolean;
  description: string;
}

/** The provider entry (SPEC: name, configured, needs_link_session, capabilities, credentials_schema). */
export interface ProviderInfo {
  name: ProviderName;
  /** True when the server has this provider's configuration (env); CSV always is. */
  configured: boolean;
  /** True when POST /providers/{name}/link-session returns a token; false when it answers 204. */
  needsLinkSession: boolean;
  /** Informational labels, e.g. "transactions", "balances", "webhooks". */
  capabilities: string[];
  credentialsSchema: Record<string, CredentialField>;
}

/** A token for the provider's browser widget (Plaid Link, Teller Connect). */
export interface LinkSession {
  linkToken: string;
  expiration: Date;
}

/** What a provider needs to act for one connection: decrypted, never logged. */
export type Credentials = Record<string, unknown>;

/** A file the person brought, to store as an import record (csv_imports), not as a secret. */
export interface FileImport {
  /** The decoded text. */
  text: string;
  /** Its SHA-256, base64url. */
  sha256: string;
  mapping: Record<string, string>;
  options: {
    date_format: string;
    decimal_separator: string;
    positive_is_debit: boolean;
    account_name: string;
    iso_currency_code: string;
  };
}

/** The result of turning what the person brought (public token, setup token, CSV…) into a connection. */
export interface Enrollment {
  /** The provider's id of the login (Plaid item_id, Teller enrollment id, …): webhooks name it. */
  providerItemId: string;
  institutionId: string | null;
  institutionName: string | null;
  /**
   * What to store (encrypted) for later calls, e.g. `{ access_token }` or
   * `{ access_url }`; empty, and not stored, for a provider that keeps files (CSV).
   */
  credentials: Credentials;
  /** A file to store as the connection's newest import (CSV). */
  fileImport?: FileImport;
}

/**
 * What the engine hands a provider's calls besides the credentials: a
 * database session of the connection's own, read only by a provider whose
 * input Coffer keeps (the CSV provider reads its import by id).
 */
export interface ProviderCallContext {
  em: Em;
}

/** A provider whose connections keep files (import records) rather than sealed credentials. */
export const keepsFiles = (p: Provider): boolean => p.info().capabilities.includes("file_import");

export type AccountType = "depository" | "credit" | "loan" | "investment" | "other";

/** An account as the provider reports it. Balances are decimal strings as the bank states them. */
export interface ProviderAccount {
  providerAccountId: string;
  name: string;
  officialName: string | null;
  type: AccountType;
  subtype: string | null;
  mask: string | null;
  isoCurrencyCode: string;
  balanceCurrent: string | null;
  balanceAvailable: string | null;
  balanceLimit: string | null;
}

/** A transaction, normalised (see the header comment for sign and formats). */
export interface ProviderTransaction {
  providerAccountId: string;
  providerTransactionId: string;
  /** Where the person finds the row in what they gave (a CSV's "line 12"); skip reports name it instead of the id. */
  sourceRef?: string;
  amount: string;
  isoCurrencyCode: string;
  date: string;
  authorizedDate: string | null;
  /** The bank's text. */
  name: string;
  merchantName: string | null;
  categoryPrimary: string | null;
  categoryDetailed: string | null;
  pending: boolean;
  /** For a posted row that replaces a pending one (Plaid's pending_transaction_id), the pending row's id. */
  pendingTransactionId: string | null;
}

/**
 * For window-based providers (Teller, SimpleFIN), which have no removal feed:
 * the page holds every transaction of this account dated within [from, to]
 * (inclusive), so a stored *pending* row of that account in the window that
 * the page does not contain is gone at the bank.
 */
export interface CompleteWindow {
  providerAccountId: string;
  from: string;
  to: string;
}

/** A row a sync could not take: where it is, why, and (when the amount is why) the amount as the provider wrote it. */
export interface SkippedRow {
  row: string;
  reason: string;
  amount?: string;
}

/** One unit of incremental sync; the engine commits each page and its cursor in one transaction. */
export interface SyncPage {
  added: ProviderTransaction[];
  modified: ProviderTransaction[];
  removed: { providerAccountId: string; providerTransactionId: string }[];
  windows: CompleteWindow[];
  /** Malformed rows the provider skipped, by position and reason (reported in the sync log and on the connection). */
  skipped: SkippedRow[];
  /** The cursor to store once this page is committed; the next sync continues from it. */
  nextCursor: string;
}

/** Why a provider call failed, in terms the engine acts on. */
export type ProviderFailure =
  /** The person must log in again (Plaid ITEM_LOGIN_REQUIRED, Teller enrollment.disconnected, SimpleFIN 403). */
  | "reauth_required"
  /** The provider or the bank is down, timed out or answered garbage: retry later. */
  | "unavailable"
  /** Too many requests: retry later, slower. */
  | "rate_limited"
  /** The credentials or input the person gave are wrong (bad public token, used setup token, bad CSV). */
  | "invalid_input"
  /** The server's own provider configuration is wrong (bad client id/secret, certificate). */
  | "misconfigured"
  /** The connection is gone at the provider (token revoked, item removed). */
  | "revoked";

/**
 * A failed provider call. `code` is a stable, provider-neutral code for the
 * connection's `error_code` (e.g. PROVIDER_UNAVAILABLE, ITEM_LOGIN_REQUIRED);
 * `message` is safe to show (no secrets, no raw bodies).
 */
export class ProviderError extends Error {
  /** How long the provider asked us to wait (a 429's Retry-After), if it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly failure: ProviderFailure,
    readonly code: string,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, { cause: options?.cause });
    this.name = "ProviderError";
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** What a verified inbound webhook asks of Coffer. */
export interface WebhookEvent {
  /** The provider's id of the event, for idempotency (Teller `wh_…`), or null. */
  eventId: string | null;
  /** e.g. "TRANSACTIONS/SYNC_UPDATES_AVAILABLE", "enrollment.disconnected". */
  type: string;
  /** The logins it concerns (Enrollment.providerItemId). */
  providerItemIds: string[];
  action: "sync" | "reauth_required" | "repaired" | "none";
  /**
   * What makes this signed delivery unique (Plaid: body hash and iat; Teller:
   * signature timestamp and body hash): the same key again within the
   * signature's validity is a replay. Null when unknown.
   */
  replayKey?: string | null;
  /** When the provider signed the delivery: a report older than the login's last repair is stale. */
  signedAt?: Date | null;
}

export interface Provider {
  readonly name: ProviderName;
  info(): ProviderInfo;
  /**
   * A link session for the browser widget, or null when the provider needs
   * none (the endpoint then answers 204). With `update`, a session that
   * repairs an existing connection (Plaid update mode, Teller repair).
   */
  createLinkSession(input: { clientUserId: string; update?: Credentials }): Promise<LinkSession | null>;
  /** Validates what the person brought and turns it into an enrollment (exchange, claim, parse). */
  enroll(input: Credentials): Promise<Enrollment>;
  /** The connection's accounts with their current balances. */
  accounts(credentials: Credentials, ctx?: ProviderCallContext): Promise<ProviderAccount[]>;
  /**
   * Pages of changes since `cursor` (null: from the beginning). Providers that
   * must restart a pagination (Plaid's mutation during pagination) do so
   * themselves; pages they already yielded may then be yielded again, which the
   * engine applies idempotently.
   */
  sync(credentials: Credentials, cursor: string | null, ctx?: ProviderCallContext): AsyncIterable<SyncPage>;
  /** Ends the connection at the provider (Plaid /item/remove, Teller DELETE /accounts); idempotent. */
  remove(credentials: Credentials): Promise<void>;
  /**
   * Verifies an inbound webhook (signature over the raw body) and says what it
   * asks; throws ProviderError("invalid_input", "INVALID_SIGNATURE", …) when it
   * is not authentic. Providers without webhooks leave it undefined.
   */
  verifyWebhook?(headers: Record<string, string | undefined>, rawBody: Buffer): Promise<WebhookEvent>;
}
