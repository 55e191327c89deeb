import { isCalendarDate } from "../../../../common/validation.js";
import { addDays, dayStartSeconds, daysBetween, utcDay } from "../../../../common/days.js";
import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type Provider,
  type ProviderAccount,
  type ProviderInfo,
  type ProviderTransaction,
  type SyncPage,
} from "../provider.js";
import { accessUrlId, claimUrl, parseAccessUrl, type AccessUrl } from "./access-url.js";
import { isoCurrency, readAccountSet, toAccount, toTransaction, type SetError } from "./account-set.js";
import { claim, getAccounts } from "./http.js";
import { MAX_WINDOW_DAYS, type SimplefinOptions } from "./options.js";
import { systemClock } from "../../../clock.js";
import { NO_RETRY, retrying } from "../retry.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_OVERLAP_DAYS = 10;
const DEFAULT_HISTORY_DAYS = 365;

export function simplefinInfo(): ProviderInfo {
  return {
    name: "simplefin",
    configured: true, // nothing to configure on the server: the access URL is the whole credential
    needsLinkSession: false,
    capabilities: ["accounts", "balances", "transactions", "pending"],
    credentialsSchema: {
      setup_token: {
        type: "string",
        required: true,
        description: "A SimpleFIN setup token from your SimpleFIN Bridge (base64 text; it can be claimed once)",
      },
    },
  };
}

function access(credentials: Credentials): AccessUrl {
  const url = credentials.access_url;
  if (typeof url !== "string" || url === "") {
    throw new ProviderError("invalid_input", "INVALID_CREDENTIALS", "SimpleFIN credentials have no access_url");
  }
  return parseAccessUrl(url);
}

/** The query of one /accounts call (v2 asked for; a v1 server ignores it and answers v1). */
function accountsQuery(extra: Record<string, string>): URLSearchParams {
  return new URLSearchParams({ version: "2", ...extra });
}

export class SimplefinProvider implements Provider {
  readonly name = "simplefin" as const;

  constructor(private readonly options: SimplefinOptions = {}) {}

  info(): ProviderInfo {
    return simplefinInfo();
  }

  /** The person pastes a setup token; there is no widget and no session. */
  async createLinkSession(): Promise<null> {
    return null;
  }

  /**
   * Claims the setup token (once, ever) and keeps the access URL. The claim
   * burns the token, so after it nothing may fail: the institution names
   * come from one balances-only read, and are left unknown when that fails.
   */
  async enroll(input: Credentials): Promise<Enrollment> {
    const token = typeof input.setup_token === "string" ? input.setup_token : "";
    const url = claimUrl(token);
    const accessUrl = await claim(url, this.timeout());
    const parsed = parseAccessUrl(accessUrl);
    let institutionId: string | null = null;
    let institutionName: string | null = null;
    try {
      const set = readAccountSet(await getAccounts(parsed, accountsQuery({ "balances-only": "1" }), this.timeout()));
      const ids = [...new Set(set.accounts.map((a) => a.institutionId).filter((v) => v !== null))];
      const names = [...new Set(set.accounts.map((a) => a.institutionName).filter((v) => v !== null))];
      institutionId = ids.length === 1 ? ids[0] : null;
      institutionName = names.length > 0 ? names.join(", ").slice(0, 200) : null;
    } catch {
      // The access URL is what matters; the names show up on a later sync's accounts.
    }
    return {
      providerItemId: accessUrlId(accessUrl),
      institutionId,
      institutionName,
      credentials: { access_url: accessUrl },
    };
  }

  async accounts(credentials: Credentials): Promise<ProviderAccount[]> {
    const url = access(credentials);
    const json = await this.read(url, accountsQuery({ "balances-only": "1" }));
    const out: ProviderAccount[] = [];
    for (const account of readAccountSet(json).accounts) {
      const currency = isoCurrency(account);
      if (currency) out.push(toAccount(account, currency));
    }
    return out;
  }

  /**
   * One page for the whole sync: every transaction from 10 days before the
   * stored cursor date (the last `historyDays` on the first sync) to today,
   * read in `start-date` windows of at most 90 days with pending rows, and
   * one complete window per account that reported no trouble. A single page
   * because the protocol says nothing about which window a `posted: 0`
   * pending row comes back in.
   *
   * Trouble the Account Set reports with a 200: `con.auth` (or a v1 message
   * asking to log in again) keeps the data that came, holds the cursor, and
   * ends the sync with reauth_required; `act.*` and other `con.*` problems
   * are reported as skipped, claim no window for what they concern, and hold
   * the cursor so the next sync reads the same days again.
   */
  async *sync(credentials: Credentials, cursor: string | null): AsyncIterable<SyncPage> {
    const url = access(credentials);
    const today = utcDay(this.now());
    const historyStart = addDays(today, -(this.options.historyDays ?? DEFAULT_HISTORY_DAYS));
    const held = cursor && isCalendarDate(cursor) ? cursor : null;
    let from = held ? addDays(held, -(this.options.overlapDays ?? DEFAULT_OVERLAP_DAYS)) : historyStart;
    if (from < historyStart) from = historyStart;
    const end = addDays(today, 1); // exclusive: today is the last day read

    const rows = new Map<string, ProviderTransaction>();
    const page: SyncPage = { added: [], modified: [], removed: [], windows: [], skipped: [], nextCursor: today };
    const troubled = new Set<string>(); // accounts whose window cannot be claimed
    const seenAccounts = new Map<string, string | null>(); // account id → conn_id
    const errors: SetError[] = [];
    const skippedAccounts = new Set<string>();

    for (let start = from; start < end; start = addDays(start, MAX_WINDOW_DAYS)) {
      const stop = daysBetween(start, end) > MAX_WINDOW_DAYS ? addDays(start, MAX_WINDOW_DAYS) : end;
      const query = accountsQuery({
        "start-date": String(dayStartSeconds(start)),
        "end-date": String(dayStartSeconds(stop)),
        pending: "1",
      });
      const set = readAccountSet(await this.read(url, query));
      for (const e of set.errors) {
        // Each window's answer repeats the same problems; report each once.
        if (!errors.some((o) => JSON.stringify(o) === JSON.stringify(e))) errors.push(e);
      }
      for (const account of set.accounts) {
        seenAccounts.set(account.id, account.connId);
        const currency = isoCurrency(account);
        if (!currency) {
          if (!skippedAccounts.has(account.id)) {
            skippedAccounts.add(account.id);
            page.skipped.push({
              row: `account ${account.id}`,
              reason: `custom currency ${account.currency} is not supported`,
            });
          }
          troubled.add(account.id);
          continue;
        }
        const txns = Array.isArray(account.raw.transactions) ? account.raw.transactions : [];
        txns.forEach((raw, i) => {
          const result = toTransaction(account, currency, raw, today);
          if ("txn" in result) rows.set(`${account.id}\n${result.txn.providerTransactionId}`, result.txn);
          else
            page.skipped.push({
              row: `${result.id} (account ${account.id}, row ${i + 1})`,
              reason: result.skip,
              amount: result.amount,
            });
        });
      }
    }

    let hold = false;
    for (const e of errors) {
      page.skipped.push({
        row: e.accountId ? `account ${e.accountId}` : "account set",
        reason: `SimpleFIN ${e.code ?? "error"}: ${e.message}`,
      });
      const scoped = e.accountId !== null || e.connId !== null;
      for (const [id, connId] of seenAccounts) {
        if (!scoped || e.accountId === id || (e.accountId === null && e.connId === connId)) troubled.add(id);
      }
      if (e.reauth || (e.code !== null && (e.code.startsWith("act.") || e.code.startsWith("con.")))) hold = true;
    }
    page.added = [...rows.values()];
    for (const id of seenAccounts.keys()) {
      if (!troubled.has(id)) page.windows.push({ providerAccountId: id, from, to: today });
    }
    if (hold) page.nextCursor = held ?? "";
    yield page;

    const reauth = errors.find((e) => e.reauth);
    if (reauth) throw new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", `SimpleFIN: ${reauth.message}`);
  }

  /** SimpleFIN has no call to end access; the person disables it at the Bridge. Coffer forgets the URL. */
  async remove(): Promise<void> {}

  /** GET /accounts within a sync, retried while it fails transiently (providers/retry.ts). */
  private read(url: AccessUrl, query: URLSearchParams): Promise<unknown> {
    return retrying(this.options.retry ?? NO_RETRY, () => getAccounts(url, query, this.timeout()));
  }

  private timeout(): number {
    return this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private now(): Date {
    return (this.options.clock ?? systemClock).now();
  }
}
