import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Faults, applyTransportFault, close, listen, randomId, readBody, seededRandom, sendJson } from "../http.js";

/**
 * A local SimpleFIN Bridge: setup tokens (base64 claim URLs) that can be
 * claimed once for an access URL pointing back at this server, and
 * `GET /simplefin/accounts` with Basic auth, answering the v1 Account Set
 * (`errors` strings, `org` per account) or, when asked with `version=2`, the
 * v2 draft (`errlist`, `connections`, `conn_id`). Amounts are signed as
 * SimpleFIN signs them: positive = money into the account.
 */

export interface SfTxn {
  id: string;
  /** Unix seconds; 0 while pending. */
  posted: number;
  amount: string;
  description: string;
  transacted_at?: number;
  pending?: boolean;
  payee?: string;
  memo?: string;
  extra?: Record<string, unknown>;
}

export interface SfAccount {
  id: string;
  connId: string;
  name: string;
  currency: string;
  balance: string;
  availableBalance?: string;
  transactions: SfTxn[];
  holdings?: Record<string, unknown>[];
}

export interface SfConnection {
  conn_id: string;
  name: string;
  org_id: string;
  sfin_url: string;
  /** The v1 `org` of this connection's accounts (the spec allows domain only or name only). */
  org: { domain?: string; name?: string; "sfin-url": string; id?: string };
}

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);
export const CAP_WARNING = "Requested date range exceeds limit of 90 days and was capped.";

export class FakeSimplefin {
  readonly faults = new Faults();
  /** Every /accounts request's query, in order. */
  readonly requests: URLSearchParams[] = [];
  readonly connections: SfConnection[];
  readonly accounts: SfAccount[];
  /** A server that only speaks v1 ignores `version=2`. */
  v1Only = false;
  /** Requests per day: from `warnAt` on the answer carries a warning; past `blockAt` the access URL is disabled. */
  quota = { warnAt: 1_000, blockAt: 2_000 };
  url = "";

  private readonly server: Server;
  private readonly random = seededRandom(11);
  private readonly setupCodes = new Map<string, boolean>(); // code → claimed
  private readonly credentials = new Map<string, boolean>(); // "user:pass" → enabled
  private requestsToday = 0;
  private lapsed = false;
  private reauth = new Set<string>(); // conn ids needing a login at the Bridge
  private failing = new Set<string>(); // account ids whose bank reads fail

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
    const t = now();
    this.connections = [
      {
        conn_id: "CON-first",
        name: "First Demo Bank",
        org_id: "ORG-first",
        sfin_url: "https://bridge.example/simplefin",
        org: { domain: "firstdemo.example", "sfin-url": "https://bridge.example/simplefin" },
      },
      {
        conn_id: "CON-second",
        name: "Second Credit Union",
        org_id: "ORG-second",
        sfin_url: "https://bridge.example/simplefin",
        org: { name: "Second Credit Union", "sfin-url": "https://bridge.example/simplefin", id: "ORG-second" },
      },
    ];
    this.accounts = [
      {
        id: "ACT-checking",
        connId: "CON-first",
        name: "Checking",
        currency: "USD",
        balance: "1520.34",
        transactions: [
          { id: "TRN-shared-1", posted: t - 100 * DAY, amount: "1200", description: "PAYROLL", payee: "Acme Corp" },
          {
            id: "TRN-c2",
            posted: t - 40 * DAY,
            amount: "-45.10",
            description: "GROCERY 123",
            extra: { category: "groceries" },
          },
          { id: "TRN-c3", posted: t - 5 * DAY, amount: "0.00", description: "CARD VERIFICATION", memo: "auth" },
          {
            id: "TRN-c4",
            posted: 0,
            amount: "-12.00",
            description: "COFFEE PENDING",
            pending: true,
            transacted_at: t - DAY,
          },
        ],
      },
      {
        id: "ACT-savings",
        connId: "CON-first",
        name: "Savings",
        currency: "USD",
        balance: "1200",
        availableBalance: "1100.00",
        transactions: [{ id: "TRN-s1", posted: t - 20 * DAY, amount: "3.21", description: "INTEREST" }],
      },
      {
        id: "ACT-card",
        connId: "CON-second",
        name: "Visa",
        currency: "USD",
        balance: "-33293.43",
        transactions: [
          { id: "TRN-shared-1", posted: t - 10 * DAY, amount: "-33293.43", description: "BIG PURCHASE" },
          { id: "TRN-v2", posted: t - 2 * DAY, amount: "50.00", description: "REFUND", payee: "Shop" },
        ],
        holdings: [],
      },
      {
        id: "ACT-points",
        connId: "CON-second",
        name: "Reward Points",
        currency: "https://rewards.example/points",
        balance: "1000",
        transactions: [{ id: "TRN-p1", posted: t - 3 * DAY, amount: "25", description: "POINTS EARNED" }],
      },
    ];
  }

  async start(): Promise<this> {
    this.url = `http://127.0.0.1:${await listen(this.server)}`;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  // ---- test controls ------------------------------------------------------------------------

  /** A setup token: base64 of this server's claim URL (optionally with the trailing newline people paste). */
  createSetupToken(options: { trailingNewline?: boolean } = {}): string {
    const code = randomId(this.random, 24);
    this.setupCodes.set(code, false);
    const token = Buffer.from(`${this.url}/simplefin/claim/${code}`).toString("base64");
    return options.trailingNewline ? `${token}\n` : token;
  }

  account(id: string): SfAccount {
    const a = this.accounts.find((x) => x.id === id);
    if (!a) throw new Error(`no fake account ${id}`);
    return a;
  }

  addTransaction(accountId: string, txn: Partial<SfTxn> & { amount: string }): SfTxn {
    const full: SfTxn = { id: `TRN-${randomId(this.random, 12)}`, posted: now(), description: "NEW", ...txn };
    this.account(accountId).transactions.push(full);
    return full;
  }

  /** The pending row disappears and a posted row with another id appears (the protocol links nothing). */
  postUnderNewId(accountId: string, pendingId: string, changes: Partial<SfTxn> = {}): SfTxn {
    const account = this.account(accountId);
    const pending = account.transactions.find((t) => t.id === pendingId);
    if (!pending) throw new Error(`no transaction ${pendingId}`);
    account.transactions = account.transactions.filter((t) => t !== pending);
    return this.addTransaction(accountId, {
      amount: pending.amount,
      description: pending.description.replace(" PENDING", ""),
      ...changes,
    });
  }

  /** The connection needs the person to log in at the Bridge: its accounts are left out (v2 `con.auth`). */
  needsReauth(connId: string, on = true): void {
    if (on) this.reauth.add(connId);
    else this.reauth.delete(connId);
  }

  /** Reading this account from the bank fails: it comes back without transactions (v2 `act.failed`). */
  failAccount(accountId: string, on = true): void {
    if (on) this.failing.add(accountId);
    else this.failing.delete(accountId);
  }

  /** The person disabled every access URL at the Bridge (403 from now on). */
  revokeAll(): void {
    for (const key of this.credentials.keys()) this.credentials.set(key, false);
  }

  /** A new day: the request counter starts again. */
  resetQuota(): void {
    this.requestsToday = 0;
  }

  /** The Bridge subscription lapsed (402). */
  lapse(on = true): void {
    this.lapsed = on;
  }

  // ---- the API ------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await readBody(req);
    const url = new URL(req.url ?? "/", "http://simplefin.invalid");
    const fault = this.faults.take(url.pathname.replace(/\/claim\/.*$/, "/claim"));
    if (fault?.kind === "status") return void res.writeHead(fault.status).end(`status ${fault.status}`);
    if (await applyTransportFault(fault, res)) return;

    const claim = /^\/simplefin\/claim\/([^/]+)$/.exec(url.pathname);
    if (claim && req.method === "POST") return this.claim(claim[1], res);
    if (url.pathname === "/simplefin/info") return sendJson(res, 200, { versions: ["1.0", "2.0"] });
    if (url.pathname !== "/simplefin/accounts" || req.method !== "GET") return void res.writeHead(404).end();

    const auth = req.headers.authorization ?? "";
    const pair = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("utf8") : "";
    if (this.credentials.get(pair) !== true) return void res.writeHead(403).end("Forbidden");
    if (this.lapsed) return void res.writeHead(402).end("Payment Required");
    this.requests.push(url.searchParams);
    this.requestsToday++;
    if (this.requestsToday > this.quota.blockAt) {
      this.credentials.set(pair, false); // abuse disables the access token
      return void res.writeHead(403).end("Forbidden");
    }
    sendJson(res, 200, this.accountSet(url.searchParams));
  }

  private claim(code: string, res: ServerResponse): void {
    if (this.setupCodes.get(code) !== false) return void res.writeHead(403).end("Forbidden");
    this.setupCodes.set(code, true);
    const user = randomId(this.random, 16);
    const pass = randomId(this.random, 24);
    this.credentials.set(`${user}:${pass}`, true);
    const body = `http://${user}:${pass}@${this.url.slice("http://".length)}/simplefin`;
    res.writeHead(200, { "content-type": "text/plain" }).end(body);
  }

  private accountSet(q: URLSearchParams) {
    const v2 = q.get("version") === "2" && !this.v1Only;
    const errors: { code: string; msg: string; conn_id?: string; account_id?: string }[] = [];
    let start = q.has("start-date") ? Number(q.get("start-date")) : null;
    let end = q.has("end-date") ? Number(q.get("end-date")) : null;
    if (start !== null && (end ?? now()) - start > 90 * DAY) {
      end = start + 90 * DAY;
      errors.push({ code: "gen.api", msg: CAP_WARNING });
    }
    if (start === null && end !== null) start = end - 90 * DAY;
    if (this.requestsToday >= this.quota.warnAt) {
      errors.push({
        code: "gen.api",
        msg: "You are near your daily request limit; more requests will disable access.",
      });
    }
    const pending = q.get("pending") === "1";
    const wanted = q.getAll("account");
    const inRange = (t: number) => (start === null || t >= start) && (end === null || t < end);
    const accounts = [];
    for (const a of this.accounts) {
      if (wanted.length && !wanted.includes(a.id)) continue;
      if (this.reauth.has(a.connId)) continue;
      const conn = this.connections.find((c) => c.conn_id === a.connId)!;
      const txns = a.transactions.filter((t) =>
        t.pending || t.posted === 0 ? pending && inRange(t.transacted_at ?? now()) : inRange(t.posted),
      );
      const failing = this.failing.has(a.id);
      if (failing)
        errors.push({ code: "act.failed", msg: `Could not reach ${conn.name} for ${a.name}.`, account_id: a.id });
      accounts.push({
        ...(v2 ? { conn_id: a.connId } : { org: conn.org }),
        id: a.id,
        name: a.name,
        currency: a.currency,
        balance: a.balance,
        ...(a.availableBalance ? { "available-balance": a.availableBalance } : {}),
        "balance-date": now() - 3600,
        ...(q.get("balances-only") === "1" ? {} : { transactions: failing ? [] : txns }),
        ...(a.holdings ? { holdings: a.holdings } : {}),
      });
    }
    for (const connId of this.reauth) {
      const conn = this.connections.find((c) => c.conn_id === connId)!;
      errors.push({ code: "con.auth", msg: `You must reauthenticate with ${conn.name}.`, conn_id: connId });
    }
    if (v2) {
      const connections = this.connections.map(({ org: _org, ...c }) => c);
      return { errlist: errors, connections, accounts };
    }
    // v1 has only strings: the reauth message the Bridge is known to send, and the others' text.
    return { errors: errors.map((e) => (e.code === "con.auth" ? "You must reauthenticate." : e.msg)), accounts };
  }
}
