import { isCalendarDate } from "../../../../common/validation.js";
import { moneyFromDecimal, negateMoney } from "../../../../common/money.js";
import type { ProviderAccount, ProviderTransaction } from "../provider.js";

/**
 * Teller's JSON → the contract's types. Teller signs an amount by the
 * account's own balance: on a depository account money out is negative, on a
 * credit account a purchase is positive (the amount owed goes up). Coffer
 * wants positive = money out for both, so depository amounts are negated and
 * credit amounts kept; the type comes from the account, never the row.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export interface TellerAccount {
  id: string;
  enrollmentId: string | null;
  name: string;
  type: string;
  subtype: string | null;
  status: string;
  currency: string;
  lastFour: string | null;
  institutionId: string | null;
  institutionName: string | null;
  /** The resources this institution supports for the account (Teller leaves the others out of `links`). */
  hasBalances: boolean;
  hasTransactions: boolean;
}

export function readAccount(raw: unknown): TellerAccount | null {
  if (!isObject(raw) || !str(raw.id) || typeof raw.name !== "string") return null;
  const institution = isObject(raw.institution) ? raw.institution : {};
  const links = isObject(raw.links) ? raw.links : {};
  return {
    id: raw.id as string,
    enrollmentId: str(raw.enrollment_id),
    name: raw.name,
    type: typeof raw.type === "string" ? raw.type : "",
    subtype: str(raw.subtype),
    status: typeof raw.status === "string" ? raw.status : "open",
    currency: typeof raw.currency === "string" ? raw.currency.toUpperCase() : "",
    lastFour: str(raw.last_four),
    institutionId: str(institution.id),
    institutionName: str(institution.name),
    hasBalances: typeof links.balances === "string",
    hasTransactions: typeof links.transactions === "string",
  };
}

/** A Teller balance string as a canonical amount, or null (absent, or not a whole number of cents). */
const balance = (v: unknown) => (typeof v === "string" ? moneyFromDecimal(v) : null);

export function toAccount(account: TellerAccount, balances: unknown): ProviderAccount {
  const b = isObject(balances) ? balances : {};
  return {
    providerAccountId: account.id,
    name: account.name,
    officialName: null,
    type: account.type === "credit" ? "credit" : account.type === "depository" ? "depository" : "other",
    subtype: account.subtype,
    mask: account.lastFour,
    isoCurrencyCode: account.currency,
    // For a card Teller's docs do not say what ledger means; it is taken as the amount owed, as Plaid's `current`.
    balanceCurrent: balance(b.ledger),
    balanceAvailable: balance(b.available),
    balanceLimit: null,
  };
}

/** A transaction of `account`, or the reason it is skipped. */
export function toTransaction(
  account: TellerAccount,
  raw: unknown,
): { txn: ProviderTransaction } | { skip: string; id: string; amount?: string } {
  if (!isObject(raw) || !str(raw.id)) return { skip: "no id", id: "?" };
  const id = raw.id as string;
  const amount = typeof raw.amount === "string" ? moneyFromDecimal(raw.amount) : null;
  if (amount === null) {
    const amountText = JSON.stringify(raw.amount) ?? "none";
    return { skip: `amount ${amountText} is not a whole number of cents`, id, amount: amountText };
  }
  if (typeof raw.date !== "string" || !isCalendarDate(raw.date)) return { skip: "no valid date", id };
  const details = isObject(raw.details) ? raw.details : {};
  const counterparty = isObject(details.counterparty) ? details.counterparty : {};
  return {
    txn: {
      providerAccountId: account.id,
      providerTransactionId: id,
      amount: account.type === "credit" ? amount : negateMoney(amount),
      isoCurrencyCode: account.currency,
      date: raw.date,
      authorizedDate: null,
      name: typeof raw.description === "string" ? raw.description : "",
      merchantName: str(counterparty.name),
      categoryPrimary: str(details.category),
      categoryDetailed: null,
      pending: raw.status === "pending",
      // Teller keeps the id from pending to posted; a row that comes back under a new id is not linked.
      pendingTransactionId: null,
    },
  };
}
