import { DATE_MAX_YEAR, DATE_MIN_YEAR, isCalendarDate } from "../../../../common/validation.js";
import { addDays, utcDay } from "../../../../common/days.js";
import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type Provider,
  type ProviderAccount,
  type ProviderInfo,
  type SyncPage,
} from "../provider.js";
import { isAccountClosed, unavailable } from "./errors.js";
import { TellerHttp, TellerStatusError } from "./http.js";
import { NO_RETRY, retrying } from "../retry.js";
import { readAccount, toAccount, toTransaction, type TellerAccount } from "./normalise.js";
import { TELLER_BASE_URL, tlsMaterial, type TellerOptions } from "./options.js";
import { verifyTellerWebhook } from "./webhook.js";
import { systemClock } from "../../../clock.js";

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_OVERLAP_DAYS = 10;
const DEFAULT_PAGE_SIZE = 250;
/**
 * A window claims every row from here when no start date was sent (the whole history): the first
 * day Coffer stores. The engine ignores a window outside the dates it stores.
 */
const BEGINNING = `${DATE_MIN_YEAR}-01-01`;
/** No end date is ever sent, so a window reaches as far forward as the bank has rows: the last day Coffer stores. */
const END = `${DATE_MAX_YEAR}-12-31`;
/** A runaway `from_id` loop (an id that repeats) stops here. */
const MAX_PAGES_PER_ACCOUNT = 10_000;

export function tellerInfo(configured: boolean): ProviderInfo {
  return {
    name: "teller",
    configured,
    needsLinkSession: false,
    capabilities: ["accounts", "balances", "transactions", "pending", "webhooks"],
    credentialsSchema: {
      access_token: {
        type: "string",
        required: true,
        description: "The accessToken Teller Connect's onSuccess returns",
      },
      enrollment_id: {
        type: "string",
        required: true,
        description: "The enrollment.id Teller Connect's onSuccess returns",
      },
      institution_name: {
        type: "string",
        required: false,
        description: "The enrollment.institution.name Teller Connect's onSuccess returns",
      },
    },
  };
}

/** ProviderError for anything a call threw (the http layer already maps every failure). */
const asProviderError = (err: unknown): ProviderError =>
  err instanceof TellerStatusError ? err.providerError : err instanceof ProviderError ? err : unavailable("failed");

function token(credentials: Credentials): string {
  const t = credentials.access_token;
  if (typeof t !== "string" || t === "") {
    throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "Teller credentials have no access_token");
  }
  return t;
}

export class TellerProvider implements Provider {
  readonly name = "teller" as const;
  private readonly http: TellerHttp;

  constructor(private readonly options: TellerOptions) {
    if (!options.applicationId) {
      throw new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", "Teller needs an application id");
    }
    this.http = new TellerHttp(
      options.baseUrl ?? TELLER_BASE_URL,
      tlsMaterial(options),
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
  }

  info(): ProviderInfo {
    return tellerInfo(true);
  }

  /**
   * Teller Connect runs in the browser with the public application id; there
   * is no server-side token to mint, for a new enrollment or a repair (Connect
   * with the enrollment id, after which the same access token works again).
   */
  async createLinkSession(): Promise<null> {
    return null;
  }

  /** Checks Teller Connect's access token by listing the enrollment's accounts. */
  async enroll(input: Credentials): Promise<Enrollment> {
    const accessToken = typeof input.access_token === "string" ? input.access_token.trim() : "";
    if (!accessToken) throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "access_token is required");
    const given =
      typeof input.enrollment_id === "string" && input.enrollment_id.trim() ? input.enrollment_id.trim() : null;
    let accounts: TellerAccount[];
    try {
      accounts = await this.listAccounts(accessToken, false);
    } catch (err) {
      const failure = asProviderError(err);
      if (failure.failure === "revoked") {
        throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "Teller does not accept this access token");
      }
      throw failure;
    }
    const enrollmentId = given ?? accounts.find((a) => a.enrollmentId)?.enrollmentId ?? null;
    if (!enrollmentId) throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "enrollment_id is required");
    if (accounts.some((a) => a.enrollmentId && a.enrollmentId !== enrollmentId)) {
      throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "the access token belongs to another enrollment");
    }
    const named = accounts.find((a) => a.institutionName || a.institutionId);
    const givenName = typeof input.institution_name === "string" ? input.institution_name.trim() : "";
    return {
      providerItemId: enrollmentId,
      institutionId: named?.institutionId ?? null,
      institutionName: named?.institutionName ?? (givenName || null),
      credentials: { access_token: accessToken, enrollment_id: enrollmentId },
    };
  }

  /** Accounts with live balances (Teller asks the bank on every balances call). */
  async accounts(credentials: Credentials): Promise<ProviderAccount[]> {
    const accessToken = token(credentials);
    const accounts = await this.listAccounts(accessToken, true).catch((err) => Promise.reject(asProviderError(err)));
    const out: ProviderAccount[] = [];
    for (const account of accounts) {
      let balances: unknown = null;
      if (account.status === "open" && account.hasBalances) {
        try {
          balances = await this.get(accessToken, `/accounts/${encodeURIComponent(account.id)}/balances`);
        } catch (err) {
          if (!(err instanceof TellerStatusError && isAccountClosed(err.body))) throw asProviderError(err);
        }
      }
      out.push(toAccount(account, balances));
    }
    return out;
  }

  /**
   * One page per account: every transaction dated from 10 days before the
   * stored cursor date (the whole history on the first sync), read newest
   * first and paged by `from_id`, with a window saying so — Teller sends no
   * removals, so the engine drops a stored pending row the window no longer
   * holds (a pending row that posted under a new id). The cursor is the day
   * of the sync; it moves only with the last page, so a failure part way
   * re-reads every account next time.
   */
  async *sync(credentials: Credentials, cursor: string | null): AsyncIterable<SyncPage> {
    const accessToken = token(credentials);
    const start = cursor && isCalendarDate(cursor) ? cursor : null;
    const today = utcDay(this.now());
    const from = start ? addDays(start, -(this.options.overlapDays ?? DEFAULT_OVERLAP_DAYS)) : null;
    const accounts = await this.listAccounts(accessToken, true).catch((err) => Promise.reject(asProviderError(err)));
    let held: SyncPage | null = null;
    for (const account of accounts) {
      const page: SyncPage = {
        added: [],
        modified: [],
        removed: [],
        windows: [],
        skipped: [],
        nextCursor: start ?? "",
      };
      const closed = { row: `account ${account.id}`, reason: "account closed" };
      if (account.status !== "open") {
        page.skipped.push(closed);
      } else if (!account.hasTransactions) {
        continue; // the institution offers no transactions for this account
      } else {
        const rows = await this.readWindow(accessToken, account, from);
        if (rows === "closed") page.skipped.push(closed);
        else if (this.convert(account, rows, page)) {
          page.windows.push({ providerAccountId: account.id, from: from ?? BEGINNING, to: END });
        }
      }
      if (held) yield held;
      held = page;
    }
    const last: SyncPage = held ?? { added: [], modified: [], removed: [], windows: [], skipped: [], nextCursor: "" };
    last.nextCursor = today;
    yield last;
  }

  async remove(credentials: Credentials): Promise<void> {
    try {
      await this.http.call("DELETE", "/accounts", token(credentials));
    } catch (err) {
      // 403: the token is already dead; 404: the enrollment is gone or disconnected. Either way nothing is left to end.
      if (err instanceof TellerStatusError && (err.status === 403 || err.status === 404)) return;
      throw asProviderError(err);
    }
  }

  async verifyWebhook(headers: Record<string, string | undefined>, rawBody: Buffer) {
    return verifyTellerWebhook(
      headers,
      rawBody,
      this.options.webhookSecrets ?? [],
      Math.floor(this.now().getTime() / 1000),
    );
  }

  /** Ends the keep-alive connections (tests, shutdown). */
  close(): void {
    this.http.close();
  }

  private now(): Date {
    return (this.options.clock ?? systemClock).now();
  }

  /** A GET of a sync, retried while it fails transiently (providers/retry.ts). */
  private get(accessToken: string, path: string, query: Record<string, string> = {}) {
    return retrying(this.options.retry ?? NO_RETRY, () => this.http.call("GET", path, accessToken, query));
  }

  /** The enrollment's accounts; `retry` within a sync (an enrollment answers the person at once). */
  private async listAccounts(accessToken: string, retry: boolean): Promise<TellerAccount[]> {
    const json = retry
      ? await this.get(accessToken, "/accounts")
      : await this.http.call("GET", "/accounts", accessToken);
    if (!Array.isArray(json)) throw unavailable("malformed /accounts answer");
    const accounts = json.map(readAccount);
    if (accounts.some((a) => a === null)) throw unavailable("malformed account in /accounts");
    return accounts as TellerAccount[];
  }

  /** Every transaction of the account from `from` on, newest first; "closed" on 410 account.closed. */
  private async readWindow(accessToken: string, account: TellerAccount, from: string | null) {
    const count = this.options.pageSize ?? DEFAULT_PAGE_SIZE;
    const rows: unknown[] = [];
    const seen = new Set<string>();
    let fromId: string | null = null;
    for (let i = 0; i < MAX_PAGES_PER_ACCOUNT; i++) {
      const query: Record<string, string> = { count: String(count) };
      if (from) query.start_date = from;
      if (fromId) query.from_id = fromId;
      let batch: unknown;
      try {
        batch = await this.get(accessToken, `/accounts/${encodeURIComponent(account.id)}/transactions`, query);
      } catch (err) {
        if (err instanceof TellerStatusError && isAccountClosed(err.body)) return "closed" as const;
        throw asProviderError(err);
      }
      if (!Array.isArray(batch)) throw unavailable("malformed transactions answer");
      let fresh = 0;
      for (const row of batch) {
        const id = (row as { id?: unknown } | null)?.id;
        if (typeof id === "string" && seen.has(id)) continue;
        if (typeof id === "string") seen.add(id);
        rows.push(row);
        fresh++;
      }
      const lastId = (batch[batch.length - 1] as { id?: unknown } | undefined)?.id;
      if (batch.length < count) return rows;
      // A full page with nothing new, or no id to page from: the window cannot be read completely.
      if (fresh === 0 || typeof lastId !== "string") throw unavailable("transactions paging did not advance");
      fromId = lastId;
    }
    throw unavailable(`more than ${MAX_PAGES_PER_ACCOUNT} pages of transactions for one account`);
  }

  /** Adds the account's rows to the page; false when the account's type gives no sign rule. */
  private convert(account: TellerAccount, rows: unknown[], page: SyncPage): boolean {
    if (account.type !== "depository" && account.type !== "credit") {
      const reason = `unknown account type ${JSON.stringify(account.type)}`;
      page.skipped.push({ row: `account ${account.id}`, reason });
      return false;
    }
    rows.forEach((raw, i) => {
      const result = toTransaction(account, raw);
      if ("txn" in result) page.added.push(result.txn);
      else
        page.skipped.push({
          row: `${result.id} (account ${account.id}, row ${i + 1})`,
          reason: result.skip,
          amount: result.amount,
        });
    });
    return true;
  }
}
