import type { CountryCode, LinkTokenCreateRequest, PlaidApi, Products } from "plaid";
import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type LinkSession,
  type Provider,
  type ProviderAccount,
  type ProviderInfo,
  type ProviderTransaction,
  type SyncPage,
} from "../provider.js";
import { MUTATION_DURING_PAGINATION, malformed, plaidErrorCode, toProviderError } from "./errors.js";
import { pageContext, toAccount, toTransaction } from "./normalise.js";
import { plaidBaseUrl, type PlaidOptions } from "./options.js";
import { PlaidWebhookVerifier } from "./webhook.js";
import { NO_RETRY, retrying } from "../retry.js";
import { systemClock } from "../../../clock.js";

/** Plaid's largest /transactions/sync page: fewer round trips, less chance of a mutation mid-pagination. */
const SYNC_PAGE_SIZE = 500;
const DEFAULT_RESTARTS = 3;
const DEFAULT_TIMEOUT_MS = 30_000;

export function plaidInfo(configured: boolean): ProviderInfo {
  return {
    name: "plaid",
    configured,
    needsLinkSession: true,
    capabilities: ["accounts", "balances", "transactions", "pending", "webhooks"],
    credentialsSchema: {
      public_token: {
        type: "string",
        required: true,
        description: "The public_token Plaid Link's onSuccess returns (single use, valid for 30 minutes)",
      },
    },
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The access token stored for a connection. */
function accessToken(credentials: Credentials): string {
  const token = credentials.access_token;
  if (typeof token !== "string" || token === "") {
    throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "Plaid credentials have no access_token");
  }
  return token;
}

/** The body of a 2xx answer, which must be a JSON object (axios hands over unparsable text as a string). */
function body(data: unknown, what: string): Json {
  if (!isObject(data)) throw malformed(what);
  return data;
}

export class PlaidProvider implements Provider {
  readonly name = "plaid" as const;
  private client: Promise<PlaidApi> | null = null;
  private readonly webhooks: PlaidWebhookVerifier;

  constructor(private readonly options: PlaidOptions) {
    if (!options.clientId || !options.secret) {
      throw new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", "Plaid needs a client id and a secret");
    }
    const clock = options.clock ?? systemClock;
    this.webhooks = new PlaidWebhookVerifier(
      (kid) => this.fetchWebhookKey(kid),
      () => clock.now(),
    );
  }

  /** Plaid's SDK (with axios) is loaded at the first call, not on every start of the core. */
  private api(): Promise<PlaidApi> {
    this.client ??= import("plaid").then(
      ({ Configuration, PlaidApi }) =>
        new PlaidApi(
          new Configuration({
            basePath: plaidBaseUrl(this.options),
            baseOptions: {
              timeout: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
              headers: { "PLAID-CLIENT-ID": this.options.clientId, "PLAID-SECRET": this.options.secret },
            },
          }),
        ),
    );
    return this.client;
  }

  info(): ProviderInfo {
    return plaidInfo(true);
  }

  async createLinkSession(input: { clientUserId: string; update?: Credentials }): Promise<LinkSession> {
    const request: LinkTokenCreateRequest = {
      client_name: (this.options.clientName ?? "Coffer").slice(0, 30),
      language: "en",
      country_codes: (this.options.countryCodes ?? ["US"]) as CountryCode[],
      user: { client_user_id: input.clientUserId },
    };
    if (this.options.redirectUri) request.redirect_uri = this.options.redirectUri;
    if (input.update) {
      // Update mode: Link repairs the existing Item; its access token and item id stay the same.
      request.access_token = accessToken(input.update);
      request.update = { account_selection_enabled: true };
    } else {
      request.products = ["transactions" as Products];
      request.transactions = { days_requested: this.options.daysRequested ?? 730 };
      if (this.options.webhookUrl) request.webhook = this.options.webhookUrl;
    }
    const data = body(await this.call(async () => (await this.api()).linkTokenCreate(request)), "/link/token/create");
    const expiration = typeof data.expiration === "string" ? new Date(data.expiration) : null;
    if (typeof data.link_token !== "string" || !expiration || Number.isNaN(expiration.getTime())) {
      throw malformed("/link/token/create");
    }
    return { linkToken: data.link_token, expiration };
  }

  async enroll(input: Credentials): Promise<Enrollment> {
    const publicToken = typeof input.public_token === "string" ? input.public_token.trim() : "";
    if (!publicToken) throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "public_token is required");
    const exchanged = body(
      await this.call(async () => (await this.api()).itemPublicTokenExchange({ public_token: publicToken })),
      "/item/public_token/exchange",
    );
    if (typeof exchanged.access_token !== "string" || typeof exchanged.item_id !== "string") {
      throw malformed("/item/public_token/exchange");
    }
    const credentials = { access_token: exchanged.access_token, item_id: exchanged.item_id };
    const enrollment: Enrollment = {
      providerItemId: exchanged.item_id,
      institutionId: null,
      institutionName: null,
      credentials,
    };
    try {
      const got = body(
        await (await this.api()).accountsGet({ access_token: credentials.access_token }).then((r) => r.data),
        "",
      );
      const item = isObject(got.item) ? got.item : {};
      enrollment.institutionId = typeof item.institution_id === "string" ? item.institution_id : null;
      enrollment.institutionName = typeof item.institution_name === "string" ? item.institution_name : null;
    } catch {
      // The public token is spent and the access token is what counts: the connection is made even
      // when the institution's name cannot be read now (its first sync reports whatever is wrong).
    }
    return enrollment;
  }

  async accounts(credentials: Credentials): Promise<ProviderAccount[]> {
    const token = accessToken(credentials);
    const data = body(
      await retrying(this.options.retry ?? NO_RETRY, () =>
        this.call(async () => (await this.api()).accountsGet({ access_token: token })),
      ),
      "/accounts/get",
    );
    if (!Array.isArray(data.accounts)) throw malformed("/accounts/get");
    const accounts: ProviderAccount[] = [];
    for (const raw of data.accounts) {
      const account = toAccount(raw);
      if (!("skip" in account)) accounts.push(account);
    }
    return accounts;
  }

  /**
   * /transactions/sync from `cursor` (C0) until has_more is false, 500 updates
   * a page. Every page but the last carries C0 as its cursor: Plaid's rule is
   * that only the cursor after the last page is a safe place to resume, so a
   * run that dies half way starts again from C0 (the pages it already
   * committed are applied again, idempotently). On
   * TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION the whole loop restarts
   * from C0, a bounded number of times.
   */
  async *sync(credentials: Credentials, cursor: string | null): AsyncIterable<SyncPage> {
    const token = accessToken(credentials);
    const start = cursor ?? "";
    const maxRestarts = this.options.maxPaginationRestarts ?? DEFAULT_RESTARTS;
    for (let restarts = 0; ; restarts++) {
      try {
        yield* this.paginate(token, start);
        return;
      } catch (err) {
        if (plaidErrorCode(err) !== MUTATION_DURING_PAGINATION) throw toProviderError(err);
        if (restarts >= maxRestarts) {
          throw new ProviderError(
            "unavailable",
            "PROVIDER_UNAVAILABLE",
            `Plaid: transactions kept changing during pagination (${restarts + 1} attempts); try again later`,
          );
        }
      }
    }
  }

  private async *paginate(token: string, start: string): AsyncIterable<SyncPage> {
    const currencies = new Map<string, string>();
    let next = start;
    for (let page = 1; ; page++) {
      const request = { access_token: token, count: SYNC_PAGE_SIZE, ...(next ? { cursor: next } : {}) };
      const data = await retrying(this.options.retry ?? NO_RETRY, () => this.syncPage(request));
      const { added, modified, removed } = data;
      if (
        !Array.isArray(added) ||
        !Array.isArray(modified) ||
        !Array.isArray(removed) ||
        typeof data.has_more !== "boolean" ||
        typeof data.next_cursor !== "string"
      ) {
        throw malformed("/transactions/sync");
      }
      for (const raw of Array.isArray(data.accounts) ? data.accounts : []) {
        const account = toAccount(raw);
        if (!("skip" in account)) currencies.set(account.providerAccountId, account.isoCurrencyCode);
      }
      const out: SyncPage = { added: [], modified: [], removed: [], windows: [], skipped: [], nextCursor: start };
      const ctx = pageContext(currencies);
      const convert = (rows: unknown[], into: ProviderTransaction[], list: string) => {
        rows.forEach((raw, i) => {
          const result = toTransaction(raw, ctx);
          if ("txn" in result) into.push(result.txn);
          else
            out.skipped.push({
              row: `${result.id} (page ${page}, ${list}[${i}])`,
              reason: result.skip,
              amount: result.amount,
            });
        });
      };
      convert(added, out.added, "added");
      convert(modified, out.modified, "modified");
      removed.forEach((raw, i) => {
        if (isObject(raw) && typeof raw.transaction_id === "string" && typeof raw.account_id === "string") {
          out.removed.push({ providerAccountId: raw.account_id, providerTransactionId: raw.transaction_id });
        } else {
          out.skipped.push({ row: `page ${page}, removed[${i}]`, reason: "malformed removal" });
        }
      });
      // A NOT_READY Item answers empty pages with next_cursor "": keep the cursor we had.
      if (!data.has_more) out.nextCursor = data.next_cursor || start;
      yield out;
      if (!data.has_more) return;
      if (!data.next_cursor || data.next_cursor === next)
        throw malformed("/transactions/sync (the cursor did not move)");
      next = data.next_cursor;
    }
  }

  /**
   * One /transactions/sync call. A mutation during pagination passes through
   * raw (sync() restarts from C0 on it, and it is never retried alone); any
   * other failure, a garbled answer included, is a ProviderError.
   */
  private async syncPage(request: { access_token: string; count: number; cursor?: string }): Promise<Json> {
    let data: unknown;
    try {
      data = (await (await this.api()).transactionsSync(request)).data;
    } catch (err) {
      if (plaidErrorCode(err) === MUTATION_DURING_PAGINATION) throw err;
      throw toProviderError(err);
    }
    return body(data, "/transactions/sync");
  }

  async remove(credentials: Credentials): Promise<void> {
    const token = accessToken(credentials);
    try {
      await (await this.api()).itemRemove({ access_token: token });
    } catch (err) {
      const failure = toProviderError(err);
      if (failure.failure !== "revoked") throw failure; // an Item already gone is removed
    }
  }

  verifyWebhook(headers: Record<string, string | undefined>, rawBody: Buffer) {
    return this.webhooks.verify(headers, rawBody);
  }

  private async fetchWebhookKey(kid: string) {
    try {
      const data = body(
        (await (await this.api()).webhookVerificationKeyGet({ key_id: kid })).data,
        "/webhook_verification_key/get",
      );
      const key = data.key;
      if (!isObject(key) || typeof key.kid !== "string" || typeof key.x !== "string" || typeof key.y !== "string") {
        throw malformed("/webhook_verification_key/get");
      }
      return {
        alg: String(key.alg),
        crv: String(key.crv),
        kid: key.kid,
        kty: String(key.kty),
        use: String(key.use),
        x: key.x,
        y: key.y,
        created_at: typeof key.created_at === "number" ? key.created_at : 0,
        expired_at: typeof key.expired_at === "number" ? key.expired_at : null,
      };
    } catch (err) {
      // Plaid answers an unknown key id with a 400 INVALID_INPUT: the webhook is not authentic.
      if ((err as { response?: { status?: number } }).response?.status === 400) return null;
      throw toProviderError(err);
    }
  }

  /** One Plaid call's data; any failure becomes a ProviderError (never the axios error, which holds the secret). */
  private async call<T>(request: () => Promise<{ data: T }>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await request()).data;
      } catch (err) {
        // A kept-alive socket the server closed while the sync committed a batch (its idle timeout) is reset
        // by the next request before any answer: sent again, on another socket.
        if (!isStaleSocket(err) || attempt === STALE_SOCKET_ATTEMPTS) throw toProviderError(err);
      }
    }
  }
}

/** How many times a request reset before any answer is sent (each pooled socket may be stale). */
const STALE_SOCKET_ATTEMPTS = 3;

/** A request reset by the server before any answer came (the socket was closed under it). */
const isStaleSocket = (err: unknown) =>
  (err as { code?: string }).code === "ECONNRESET" && (err as { response?: unknown }).response === undefined;
