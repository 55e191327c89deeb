import { cleanText } from "../../../../common/text.js";
import { CURRENCY, isCalendarDate } from "../../../../common/validation.js";
import { utcDay } from "../../../../common/days.js";
import { moneyFromDecimal, negateMoney } from "../../../../common/money.js";
import { ProviderError, type ProviderAccount, type ProviderTransaction } from "../provider.js";

/**
 * A SimpleFIN Account Set, v1 (`errors: string[]`, `org` on each account) or
 * the v2 draft (`errlist: [{code, msg}]`, `connections`, `conn_id` on each
 * account), read into plain values. SimpleFIN signs amounts by money into the
 * account, for every account type, so Coffer's amount is the negation.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const malformed = (why: string) =>
  new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", `SimpleFIN: malformed account set (${why})`);

/** One problem the server reported, with what it concerns. */
export interface SetError {
  /** The v2 code with an unknown subcode cut to its prefix (`con.`), or null for a v1 message. */
  code: string | null;
  /** Sanitised for display: one line, at most 200 characters. */
  message: string;
  connId: string | null;
  accountId: string | null;
  /** The person must log in again at the Bridge. */
  reauth: boolean;
}

export interface SetAccount {
  raw: Json;
  id: string;
  connId: string | null;
  name: string;
  currency: string;
  institutionId: string | null;
  institutionName: string | null;
}

export interface AccountSet {
  accounts: SetAccount[];
  errors: SetError[];
}

const KNOWN_CODES = new Set([
  "gen.",
  "gen.api",
  "gen.auth",
  "con.",
  "con.auth",
  "act.",
  "act.failed",
  "act.missingdata",
]);

/** Server text is shown to people: the provider-text rule (common/text.ts), one line, spaces collapsed, bounded. */
const sanitise = (text: string) => cleanText(text.replace(/\s+/g, " "), 200) ?? "";

/** A v1 message asking the person to log in again (e.g. "You must reauthenticate."). */
const REAUTH_TEXT = /re-?auth|log ?in again|sign ?in again|credentials/i;

function knownCode(code: string): string {
  if (KNOWN_CODES.has(code)) return code;
  const prefix = code.split(".")[0];
  return KNOWN_CODES.has(`${prefix}.`) ? `${prefix}.` : "gen.";
}

export function readAccountSet(json: unknown): AccountSet {
  if (!isObject(json) || !Array.isArray(json.accounts)) throw malformed("no accounts");
  const errors: SetError[] = [];
  if (Array.isArray(json.errlist)) {
    for (const e of json.errlist) {
      if (!isObject(e)) continue;
      const code = knownCode(str(e.code) ?? "gen.");
      errors.push({
        code,
        message: sanitise(str(e.msg) ?? str(e.message) ?? code),
        connId: str(e.conn_id),
        accountId: str(e.account_id),
        reauth: code === "con.auth" || code === "gen.auth",
      });
    }
  } else if (Array.isArray(json.errors)) {
    for (const e of json.errors) {
      if (typeof e !== "string" || !e.trim()) continue;
      errors.push({ code: null, message: sanitise(e), connId: null, accountId: null, reauth: REAUTH_TEXT.test(e) });
    }
  }
  const connections = new Map<string, Json>();
  if (Array.isArray(json.connections)) {
    for (const c of json.connections) if (isObject(c) && str(c.conn_id)) connections.set(c.conn_id as string, c);
  }
  const accounts = json.accounts.map((raw): SetAccount => {
    if (!isObject(raw) || !str(raw.id) || typeof raw.name !== "string") throw malformed("an account has no id");
    const connId = str(raw.conn_id);
    const org = isObject(raw.org) ? raw.org : null;
    const conn = connId ? connections.get(connId) : undefined;
    return {
      raw,
      id: raw.id as string,
      connId,
      name: raw.name,
      currency: typeof raw.currency === "string" ? raw.currency.trim() : "",
      institutionId: org ? (str(org.id) ?? str(org.domain)) : conn ? (str(conn.org_id) ?? connId) : null,
      institutionName: org ? (str(org.name) ?? str(org.domain)) : conn ? str(conn.name) : null,
    };
  });
  return { accounts, errors };
}

/** The ISO code of the account's currency, or null for a custom currency (SimpleFIN allows a URL there). */
export function isoCurrency(account: SetAccount): string | null {
  const code = account.currency.toUpperCase();
  return CURRENCY.test(code) ? code : null;
}

export function toAccount(account: SetAccount, currency: string): ProviderAccount {
  const balance = typeof account.raw.balance === "string" ? moneyFromDecimal(account.raw.balance) : null;
  const available = account.raw["available-balance"];
  return {
    providerAccountId: account.id,
    name: account.name,
    officialName: null,
    // The protocol has no account types.
    type: "other",
    subtype: null,
    mask: null,
    isoCurrencyCode: currency,
    balanceCurrent: balance,
    // Left out when it equals the balance.
    balanceAvailable: typeof available === "string" ? moneyFromDecimal(available) : balance,
    balanceLimit: null,
  };
}

const dayOf = (unixSeconds: unknown): string | null =>
  typeof unixSeconds === "number" && Number.isFinite(unixSeconds) && unixSeconds > 0
    ? utcDay(new Date(unixSeconds * 1000))
    : null;

/**
 * A transaction of `account`, or why it is skipped. A pending row may have
 * `posted: 0`; its date is then the day it was made (`transacted_at`), or
 * the day it was fetched.
 */
export function toTransaction(
  account: SetAccount,
  currency: string,
  raw: unknown,
  today: string,
): { txn: ProviderTransaction } | { skip: string; id: string; amount?: string } {
  if (!isObject(raw) || !str(raw.id)) return { skip: "no id", id: "?" };
  const id = raw.id as string;
  const amount = typeof raw.amount === "string" ? moneyFromDecimal(raw.amount) : null;
  if (amount === null) {
    const amountText = JSON.stringify(raw.amount) ?? "none";
    return { skip: `amount ${amountText} is not a whole number of cents`, id, amount: amountText };
  }
  const posted = dayOf(raw.posted);
  const transacted = dayOf(raw.transacted_at);
  const pending = raw.pending === true || raw.posted === 0;
  if (!posted && !pending) return { skip: "no posted date", id };
  const date = posted ?? transacted ?? today;
  if (!isCalendarDate(date)) return { skip: "no valid date", id };
  const extra = isObject(raw.extra) ? raw.extra : {};
  return {
    txn: {
      providerAccountId: account.id,
      providerTransactionId: id,
      amount: negateMoney(amount),
      isoCurrencyCode: currency,
      date,
      authorizedDate: transacted,
      name: typeof raw.description === "string" ? raw.description : (str(raw.payee) ?? ""),
      merchantName: str(raw.payee),
      categoryPrimary: str(extra.category),
      categoryDetailed: null,
      pending,
      pendingTransactionId: null,
    },
  };
}
