import { isCalendarDate } from "../../../../common/validation.js";
import { moneyFromJsonNumber } from "../../../../common/money.js";
import type { AccountType, ProviderAccount, ProviderTransaction } from "../provider.js";

/**
 * Plaid's JSON → the contract's types. Plaid already signs amounts the way
 * Coffer does (positive = money out), so amounts keep their sign; they only
 * become exact decimal strings. Coffer stores ISO 4217 amounts with 2
 * decimals, so a row in an unofficial currency (crypto, loyalty points) is
 * skipped and reported rather than squeezed into a currency it is not.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

const ACCOUNT_TYPES: Record<string, AccountType> = {
  depository: "depository",
  credit: "credit",
  loan: "loan",
  investment: "investment",
  brokerage: "investment", // the legacy name for investment
  other: "other",
};

/** An account, or a reason it cannot be used. */
export function toAccount(raw: unknown): ProviderAccount | { skip: string } {
  if (!isObject(raw) || !str(raw.account_id) || typeof raw.name !== "string" || !isObject(raw.balances)) {
    return { skip: "malformed account" };
  }
  const b = raw.balances;
  const currency = str(b.iso_currency_code);
  if (!currency) {
    const unofficial = str(b.unofficial_currency_code);
    return { skip: unofficial ? `unofficial currency ${unofficial} is not supported` : "no currency" };
  }
  const type = typeof raw.type === "string" ? raw.type : "other";
  return {
    providerAccountId: raw.account_id as string,
    name: raw.name,
    officialName: str(raw.official_name),
    type: ACCOUNT_TYPES[type] ?? "other",
    subtype: str(raw.subtype),
    mask: str(raw.mask),
    isoCurrencyCode: currency,
    // A balance Coffer cannot hold exactly (more than 2 decimals) is left unknown rather than rounded.
    balanceCurrent: moneyFromJsonNumber(b.current),
    balanceAvailable: moneyFromJsonNumber(b.available),
    balanceLimit: moneyFromJsonNumber(b.limit),
  };
}

/** What converting one page's rows needs besides the rows. */
export interface PageContext {
  /** The fallback currency for a row that names none: its account's. */
  accountCurrency(accountId: string): string | null;
  /** isCalendarDate, remembered per page (a page of 500 rows holds a few dozen distinct dates). */
  isDate(s: string): boolean;
}

export function pageContext(currencies: Map<string, string>): PageContext {
  const dates = new Map<string, boolean>();
  return {
    accountCurrency: (id) => currencies.get(id) ?? null,
    isDate(s) {
      let ok = dates.get(s);
      if (ok === undefined) dates.set(s, (ok = isCalendarDate(s)));
      return ok;
    },
  };
}

/** A transaction from /transactions/sync, or the reason it is skipped. */
export function toTransaction(
  raw: unknown,
  ctx: PageContext,
): { txn: ProviderTransaction } | { skip: string; id: string; amount?: string } {
  if (!isObject(raw)) return { skip: "not an object", id: "?" };
  const id = str(raw.transaction_id);
  const accountId = str(raw.account_id);
  if (!id || !accountId) return { skip: "no transaction_id or account_id", id: id ?? "?" };
  const amount = moneyFromJsonNumber(raw.amount);
  if (amount === null) {
    const amountText = JSON.stringify(raw.amount) ?? "none";
    return { skip: `amount ${amountText} is not a whole number of cents`, id, amount: amountText };
  }
  if (typeof raw.date !== "string" || !ctx.isDate(raw.date)) return { skip: "no valid date", id };
  let currency = str(raw.iso_currency_code);
  if (!currency) {
    const unofficial = str(raw.unofficial_currency_code);
    if (unofficial) return { skip: `unofficial currency ${unofficial} is not supported`, id };
    currency = ctx.accountCurrency(accountId);
    if (!currency) return { skip: "no currency", id };
  }
  const pfc = isObject(raw.personal_finance_category) ? raw.personal_finance_category : null;
  const authorized = str(raw.authorized_date);
  const txn: ProviderTransaction = {
    providerAccountId: accountId,
    providerTransactionId: id,
    amount,
    isoCurrencyCode: currency,
    date: raw.date,
    authorizedDate: authorized && ctx.isDate(authorized) ? authorized : null,
    name: typeof raw.name === "string" ? raw.name : (str(raw.merchant_name) ?? ""),
    merchantName: str(raw.merchant_name) ?? merchantCounterparty(raw.counterparties),
    categoryPrimary: pfc ? str(pfc.primary) : null,
    categoryDetailed: pfc ? str(pfc.detailed) : null,
    pending: raw.pending === true,
    pendingTransactionId: str(raw.pending_transaction_id),
  };
  return { txn };
}

function merchantCounterparty(raw: unknown): string | null {
  if (!Array.isArray(raw)) return null;
  const merchant = raw.find((c) => isObject(c) && c.type === "merchant") as Json | undefined;
  return merchant ? str(merchant.name) : null;
}
