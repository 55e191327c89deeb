import { createHmac, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import { Faults, applyTransportFault, close, daysAgo, listen, randomId, seededRandom, sendJson } from "../http.js";
import type { TestPki } from "./pki.js";

/**
 * A local Teller: HTTPS that asks for a client certificate but, like Teller,
 * answers a missing or foreign one with HTTP 400 instead of failing the
 * handshake; Basic auth with the access token; enrollments with depository
 * and credit accounts; transactions newest first with `count`, `from_id`
 * (strictly older) and inclusive `start_date`/`end_date`; signed amounts
 * the way Teller signs them (by the account's own balance); the errors
 * Teller documents; and HMAC-signed webhooks.
 */

export interface TellerTxn {
  id: string;
  account_id: string;
  amount: string;
  date: string;
  description: string;
  status: "posted" | "pending";
  type: string;
  running_balance: string | null;
  details: {
    processing_status: "pending" | "complete";
    category: string | null;
    counterparty: { name: string | null; type: "organization" | "person" | null };
  };
  links: { self: string; account: string };
}

/** A row as the fake keeps it: insertion order breaks date ties (newest first), `gone` hides it. */
type StoredTxn = TellerTxn & { seq: number; gone?: boolean };

export interface FakeAccount {
  id: string;
  enrollment_id: string;
  name: string;
  type: "depository" | "credit";
  subtype: string;
  status: "open" | "closed";
  currency: string;
  last_four: string;
  institution: { id: string; name: string };
  ledger: string | null;
  available: string | null;
  /** Teller leaves out the links an institution does not support. */
  supports: { balances: boolean; transactions: boolean };
  /** Every row ever listed, newest first; `gone` rows stay so a `from_id` naming one still has a place. */
  txns: StoredTxn[];
}

export interface FakeEnrollment {
  id: string;
  token: string;
  accounts: FakeAccount[];
  /** The reason the enrollment is disconnected (`user_action.mfa_required`, …), or null. */
  disconnected: string | null;
  deleted: boolean;
}

export const SANDBOX_INSTITUTION = { id: "chase", name: "Chase" };
const CATEGORIES = ["groceries", "dining", "fuel", "shopping", "utilities", "transport"];
const MERCHANTS = ["Whole Foods", "Starbucks", "Shell", "Target", "PG&E", "Lyft"];

export class FakeTeller {
  readonly faults = new Faults();
  /** Every request that reached the API: method, path and query. */
  readonly requests: { method: string; path: string; query: URLSearchParams }[] = [];
  webhookSecrets: string[] = ["whsec_current_0123456789"];
  /** A broken server that ignores `from_id` (the same page again and again). */
  ignoreFromId = false;
  url = "";

  private readonly server: Server;
  private readonly random = seededRandom(7);
  private readonly enrollments: FakeEnrollment[] = [];
  private seq = 0;

  constructor(pki: TestPki) {
    this.server = createServer(
      { cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert, requestCert: true, rejectUnauthorized: false },
      (req, res) => void this.handle(req, res),
    );
  }

  async start(): Promise<this> {
    this.url = `https://127.0.0.1:${await listen(this.server)}`;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  // ---- test controls ------------------------------------------------------------------------

  /**
   * An enrollment with a checking account, a savings account without a
   * balances link, and a credit card, each with `perAccount` posted
   * transactions over the last 60 days and one pending row today.
   */
  createEnrollment(perAccount = 5): FakeEnrollment {
    const id = `enr_${randomId(this.random, 20)}`;
    const enrollment: FakeEnrollment = {
      id,
      token: `test_token_${randomId(this.random, 24)}`,
      accounts: [],
      disconnected: null,
      deleted: false,
    };
    const account = (
      name: string,
      type: "depository" | "credit",
      subtype: string,
      balances: [string | null, string | null],
    ) => {
      const a: FakeAccount = {
        id: `acc_${randomId(this.random, 20)}`,
        enrollment_id: id,
        name,
        type,
        subtype,
        status: "open",
        currency: "USD",
        last_four: String(1000 + Math.floor(this.random() * 9000)),
        institution: SANDBOX_INSTITUTION,
        ledger: balances[0],
        available: balances[1],
        supports: { balances: true, transactions: true },
        txns: [],
      };
      enrollment.accounts.push(a);
      return a;
    };
    const checking = account("Checking", "depository", "checking", ["28575.02", "28575.02"]);
    const savings = account("Savings", "depository", "savings", [null, "1204.10"]);
    savings.supports.balances = false;
    const card = account("Platinum Card", "credit", "credit_card", ["1042.47", null]);
    for (const a of [checking, savings, card]) {
      for (let i = perAccount; i >= 1; i--) {
        const cents = 100 + Math.floor(this.random() * 20_000);
        const out = a.type === "depository" ? `-${(cents / 100).toFixed(2)}` : (cents / 100).toFixed(2);
        this.addTransaction(a, { amount: out, date: daysAgo(Math.floor((i / perAccount) * 60)) });
      }
      this.addTransaction(a, {
        status: "pending",
        amount: a.type === "depository" ? "-4.50" : "4.50",
        description: "STARBUCKS PENDING",
      });
    }
    this.enrollments.push(enrollment);
    return enrollment;
  }

  enrollment(id: string): FakeEnrollment {
    const enrollment = this.enrollments.find((e) => e.id === id);
    if (!enrollment) throw new Error(`no fake enrollment ${id}`);
    return enrollment;
  }

  account(id: string): FakeAccount {
    for (const e of this.enrollments) for (const a of e.accounts) if (a.id === id) return a;
    throw new Error(`no fake account ${id}`);
  }

  /** Adds a row (posted unless said otherwise) where its date puts it in the newest-first list. */
  addTransaction(account: FakeAccount, fields: Partial<TellerTxn> = {}): TellerTxn {
    const id = fields.id ?? `txn_${randomId(this.random, 20)}`;
    const pending = fields.status === "pending";
    const merchant = MERCHANTS[Math.floor(this.random() * MERCHANTS.length)];
    const txn: StoredTxn = {
      id,
      account_id: account.id,
      amount: "-10.00",
      date: daysAgo(0),
      description: `${merchant.toUpperCase()} ${Math.floor(this.random() * 9000 + 1000)}`,
      status: "posted",
      type: "card_payment",
      running_balance: pending ? null : "1000.00",
      details: {
        processing_status: pending ? "pending" : "complete",
        category: pending ? null : CATEGORIES[Math.floor(this.random() * CATEGORIES.length)],
        counterparty: { name: pending ? null : merchant, type: pending ? null : "organization" },
      },
      links: {
        self: `${this.url}/accounts/${account.id}/transactions/${id}`,
        account: `${this.url}/accounts/${account.id}`,
      },
      ...fields,
      seq: ++this.seq,
    };
    account.txns.push(txn);
    this.sort(account);
    return txn;
  }

  /** The pending row posts keeping its id, usually under a new date (Teller's normal case). */
  post(account: FakeAccount, id: string, changes: Partial<TellerTxn> = {}): TellerTxn {
    const txn = account.txns.find((t) => t.id === id && !t.gone);
    if (!txn || txn.status !== "pending") throw new Error(`no pending row ${id}`);
    Object.assign(txn, {
      status: "posted",
      running_balance: "990.00",
      details: {
        processing_status: "complete",
        category: "dining",
        counterparty: { name: "Starbucks", type: "organization" },
      },
      ...changes,
    });
    this.sort(account);
    return txn;
  }

  /** The pending row vanishes and a posted row with a new id appears (no removal is ever sent). */
  postUnderNewId(account: FakeAccount, id: string, changes: Partial<TellerTxn> = {}): TellerTxn {
    const txn = account.txns.find((t) => t.id === id && !t.gone);
    if (!txn || txn.status !== "pending") throw new Error(`no pending row ${id}`);
    txn.gone = true;
    return this.addTransaction(account, {
      amount: txn.amount,
      description: txn.description.replace(" PENDING", ""),
      ...changes,
    });
  }

  disconnect(enrollment: FakeEnrollment, reason = "user_action.mfa_required"): void {
    enrollment.disconnected = reason;
  }

  /** Teller Connect repaired the enrollment: the same token works again. */
  repair(enrollment: FakeEnrollment): void {
    enrollment.disconnected = null;
  }

  closeAccount(account: FakeAccount): void {
    account.status = "closed";
  }

  /** The rows Teller would list now (the ones not gone), as ids. */
  liveIds(account: FakeAccount): string[] {
    return account.txns.filter((t) => !t.gone).map((t) => t.id);
  }

  // ---- webhooks -----------------------------------------------------------------------------

  /** A webhook body as Teller sends it. */
  webhookBody(type: string, payload: Record<string, unknown>): string {
    return JSON.stringify({
      id: `wh_${randomId(this.random, 20)}`,
      type,
      timestamp: new Date().toISOString(),
      payload,
    });
  }

  /** `Teller-Signature` for the body: one v1 per secret, at time t (default now). */
  signWebhook(body: string | Buffer, options: { t?: number; secrets?: string[] } = {}): string {
    const t = options.t ?? Math.floor(Date.now() / 1000);
    const v1 = (options.secrets ?? this.webhookSecrets).map(
      (secret) => `v1=${createHmac("sha256", secret).update(`${t}.${body.toString()}`).digest("hex")}`,
    );
    return [`t=${t}`, ...v1].join(",");
  }

  // ---- the API ------------------------------------------------------------------------------

  private sort(account: FakeAccount): void {
    account.txns.sort((a, b) => (a.date === b.date ? b.seq - a.seq : a.date < b.date ? 1 : -1));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://teller.invalid");
    const fail = (status: number, code: string, message: string) => sendJson(res, status, { error: { code, message } });
    for await (const _ of req) {
      // drain the body; Teller's read routes take none
    }
    if (!(req.socket as TLSSocket).authorized) {
      return fail(400, "bad_request", "Missing certificate: Retry request using your Teller client certificate.");
    }
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("Basic ")) return fail(401, "unauthorized", "Missing access token");
    const token = Buffer.from(auth.slice(6), "base64").toString("utf8").split(":")[0];
    const enrollment = this.enrollments.find((e) => e.token === token);
    if (!enrollment || enrollment.deleted) return fail(403, "forbidden", "The access token is invalid or was revoked");

    this.requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams });
    const fault = this.faults.take(url.pathname);
    if (fault?.kind === "status") {
      if (fault.status === 429) return fail(429, "too_many_requests", "Rate limit exceeded");
      if (fault.status === 502) return fail(502, "bad_gateway", "The institution is unavailable");
      return fail(fault.status, fault.code ?? "error", "Injected failure");
    }
    if (await applyTransportFault(fault, res)) return;

    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] !== "accounts") return fail(404, "not_found", "Not found");
    if (req.method === "DELETE" && parts.length === 1) {
      enrollment.deleted = true;
      res.writeHead(204).end();
      return;
    }
    if (enrollment.disconnected) {
      return fail(404, `enrollment.disconnected.${enrollment.disconnected}`, "The enrollment is disconnected.");
    }
    if (parts.length === 1)
      return sendJson(
        res,
        200,
        enrollment.accounts.map((a) => this.accountJson(a)),
      );
    const account = enrollment.accounts.find((a) => a.id === parts[1]);
    if (!account) return fail(404, "not_found", "Account not found");
    if (account.status === "closed" && parts.length > 2) return fail(410, "account.closed", "The account is closed");
    if (parts.length === 2) return sendJson(res, 200, this.accountJson(account));
    if (parts[2] === "balances" && account.supports.balances) {
      return sendJson(res, 200, {
        account_id: account.id,
        ledger: account.ledger,
        available: account.available,
        links: { self: `${this.url}/accounts/${account.id}/balances`, account: `${this.url}/accounts/${account.id}` },
      });
    }
    if (parts[2] === "transactions" && account.supports.transactions) {
      return sendJson(res, 200, this.listTransactions(account, url.searchParams));
    }
    return fail(404, "not_found", "Not found");
  }

  private listTransactions(account: FakeAccount, q: URLSearchParams): TellerTxn[] {
    let rows = account.txns;
    const fromId = this.ignoreFromId ? null : q.get("from_id");
    if (fromId) {
      const at = rows.findIndex((t) => t.id === fromId);
      rows = at === -1 ? [] : rows.slice(at + 1);
    }
    const start = q.get("start_date");
    const end = q.get("end_date");
    const live = rows.filter((t) => !t.gone && (!start || t.date >= start) && (!end || t.date <= end));
    const count = q.get("count");
    const page = count ? live.slice(0, Number(count)) : live;
    return page.map(({ gone: _g, seq: _s, ...t }) => t);
  }

  private accountJson(a: FakeAccount) {
    const base = `${this.url}/accounts/${a.id}`;
    return {
      id: a.id,
      enrollment_id: a.enrollment_id,
      name: a.name,
      type: a.type,
      subtype: a.subtype,
      status: a.status,
      currency: a.currency,
      last_four: a.last_four,
      institution: a.institution,
      links: {
        self: base,
        details: `${base}/details`,
        ...(a.supports.balances ? { balances: `${base}/balances` } : {}),
        ...(a.supports.transactions ? { transactions: `${base}/transactions` } : {}),
      },
    };
  }
}

export const newWebhookSecret = () => `whsec_${randomUUID().replace(/-/g, "")}`;
