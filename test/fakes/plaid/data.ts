import { daysAgo, randomId, seededRandom } from "../http.js";

/**
 * Plaid-shaped accounts and transactions for the fake: every field
 * /accounts/get and /transactions/sync document, most of them null, and
 * amounts as JSON numbers with Plaid's sign (positive = money out).
 */

export type PlaidTxn = Record<string, unknown> & {
  transaction_id: string;
  account_id: string;
  amount: number;
  date: string;
  pending: boolean;
};

export type PlaidAccount = Record<string, unknown> & { account_id: string };

const CATEGORIES: [string, string][] = [
  ["FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES"],
  ["FOOD_AND_DRINK", "FOOD_AND_DRINK_COFFEE"],
  ["GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"],
  ["TRANSPORTATION", "TRANSPORTATION_GAS"],
  ["RENT_AND_UTILITIES", "RENT_AND_UTILITIES_INTERNET_AND_CABLE"],
  ["INCOME", "INCOME_WAGES"],
  ["TRAVEL", "TRAVEL_FLIGHTS"],
];
const MERCHANTS = ["Whole Foods", "Blue Bottle Coffee", "Amazon", "Shell", "Comcast", "United Airlines", null];

export function account(
  id: string,
  name: string,
  type: string,
  subtype: string | null,
  mask: string | null,
  balances: { current: number | null; available: number | null; limit?: number | null; currency?: string | null },
  unofficialCurrency: string | null = null,
): PlaidAccount {
  return {
    account_id: id,
    balances: {
      available: balances.available,
      current: balances.current,
      limit: balances.limit ?? null,
      iso_currency_code: unofficialCurrency ? null : (balances.currency ?? "USD"),
      unofficial_currency_code: unofficialCurrency,
      last_updated_datetime: null,
    },
    mask,
    name,
    official_name: `${name} (official)`,
    type,
    subtype,
    holder_category: "personal",
  };
}

/** The accounts every fake Item has: checking, a savings subtype with a space, a card with no mask. */
export function defaultAccounts(random: () => number, withCrypto: boolean): PlaidAccount[] {
  const id = () => randomId(random, 37);
  const accounts = [
    account(id(), "Plaid Checking", "depository", "checking", "0000", { current: 110, available: 100 }),
    account(id(), "Plaid Money Market", "depository", "money market", "4444", { current: 43200.5, available: 43200.5 }),
    // Positive current on a credit account = the amount owed.
    account(id(), "Plaid Credit Card", "credit", "credit card", null, {
      current: 410.12,
      available: 2000,
      limit: 2410.12,
    }),
  ];
  if (withCrypto) {
    accounts.push(
      account(id(), "Crypto Wallet", "other", "crypto exchange", "9999", { current: 0.25, available: null }, "BTC"),
    );
  }
  return accounts;
}

export function transaction(
  fields: Partial<PlaidTxn> & Pick<PlaidTxn, "transaction_id" | "account_id" | "amount" | "date">,
): PlaidTxn {
  return {
    account_owner: null,
    authorized_date: fields.date,
    authorized_datetime: null,
    category: null,
    category_id: null,
    check_number: null,
    counterparties: [],
    datetime: null,
    iso_currency_code: "USD",
    location: {
      address: null,
      city: null,
      region: null,
      postal_code: null,
      country: null,
      lat: null,
      lon: null,
      store_number: null,
    },
    logo_url: null,
    merchant_entity_id: null,
    merchant_name: null,
    name: "TRANSACTION",
    payment_channel: "other",
    payment_meta: {
      by_order_of: null,
      payee: null,
      payer: null,
      payment_method: null,
      payment_processor: null,
      ppd_id: null,
      reason: null,
      reference_number: null,
    },
    pending: false,
    pending_transaction_id: null,
    personal_finance_category: null,
    personal_finance_category_icon_url: null,
    transaction_code: null,
    transaction_type: "special",
    unofficial_currency_code: null,
    website: null,
    ...fields,
  };
}

/**
 * `count` transactions spread over the last `days` days, newest last, with
 * amounts of whole cents (a cents integer / 100 prints as its 2-dp text).
 */
export function generateTransactions(
  accounts: PlaidAccount[],
  count: number,
  seed: number,
  days = 730,
  today = new Date(),
): PlaidTxn[] {
  const random = seededRandom(seed);
  const out: PlaidTxn[] = [];
  const usable = accounts.filter((a) => (a.balances as { iso_currency_code: unknown }).iso_currency_code !== null);
  for (let i = 0; i < count; i++) {
    const acct = usable[Math.floor(random() * usable.length)];
    const income = random() < 0.08;
    const cents = income ? -Math.floor(50_000 + random() * 400_000) : Math.floor(100 + random() * 25_000);
    const [primary, detailed] = income ? CATEGORIES[5] : CATEGORIES[Math.floor(random() * CATEGORIES.length)];
    const merchant = income ? null : MERCHANTS[Math.floor(random() * MERCHANTS.length)];
    const date = daysAgo(Math.floor(((count - i) / count) * days), today);
    out.push(
      transaction({
        transaction_id: randomId(random, 37),
        account_id: acct.account_id,
        amount: cents / 100,
        date,
        name: merchant ? `${merchant.toUpperCase()} #${Math.floor(random() * 9000 + 1000)}` : "PAYROLL DIRECT DEP",
        merchant_name: merchant,
        payment_channel: merchant ? "in store" : "other",
        personal_finance_category: { primary, detailed, confidence_level: "HIGH", version: "v1" },
      }),
    );
  }
  return out;
}
