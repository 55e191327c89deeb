import householdJson from "../fixtures/demo/household.json" with { type: "json" };
import { formatCents } from "../common/money.js";
import { demoDay as generateDay, generateDemo, type DemoTransaction } from "../fixtures/demo/generate.js";
import { readHousehold } from "../fixtures/demo/household.js";
import type { Em } from "../services/db/orm.js";
import { accountContents } from "../services/db/queries/account-contents.js";
import { createAccount, findAccountIdByProviderId } from "../services/ledger/accounts/accounts.js";
import { netCentsByAccount, setAccountBalances } from "../services/ledger/accounts/balances.js";
import type { Actor } from "../services/ledger/actor.js";
import { categoryIdsBySlug } from "../services/ledger/categories/categories.js";
import { createCounterparty, findCounterpartyIdByName } from "../services/ledger/counterparties/counterparties.js";
import { createTag, findTagIdBySlug } from "../services/ledger/tags/tags.js";
import { addComment, findCommentId } from "../services/ledger/transactions/comments.js";
import {
  findImportedTransactionIds,
  insertTransactions,
  type NewTransaction,
} from "../services/ledger/transactions/insert.js";
import { createUser, findUserIdByEmail } from "../services/users/users.js";

/**
 * `coffer demo`: loads the demo household of fixtures/demo/household.json
 * (two people, four accounts, ~2,000 transactions over the last 12 months in
 * USD and EUR) through the domain functions, in one database transaction.
 *
 * Safe to run again: every row has a natural key (user email, account
 * provider id, tag slug, counterparty name, provider transaction id) and is
 * only created when missing; the generator makes the same transactions with
 * the same ids for a given day.
 */

export { formatCents };

const PROVIDER = "manual";
const ACTOR: Actor = { type: "system", id: null, keyId: null, name: "coffer demo" };
// Read at import, so a broken catalogue fails before anything is written.
const HOUSEHOLD = readHousehold(householdJson);

/** The demo's transactions generated on `date` (a pure function of the date). */
export const demoDay = (date: string): DemoTransaction[] => generateDay(HOUSEHOLD, date);

export interface DemoSummary {
  users: number;
  accounts: number;
  transactions: number;
  insertedTransactions: number;
  byCurrency: Record<string, number>;
  categorized: number;
  tagged: number;
  comments: number;
  insertedComments: number;
  from: string;
  to: string;
}

type Ids = Map<string, string>;

/** The row's id, found by its natural key or created. */
async function ensure(find: () => Promise<string | null>, create: () => Promise<string>): Promise<string> {
  return (await find()) ?? (await create());
}

async function ensureByKey<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  one: (item: T) => Promise<string>,
): Promise<Ids> {
  const ids: Ids = new Map();
  for (const item of items) ids.set(keyOf(item), await one(item));
  return ids;
}

/** The account's natural key: the demo is the "provider" and names each account by its catalogue key. */
const providerAccountId = (key: string) => `demo:${key}`;

async function ensureHousehold(tx: Em) {
  const people = await ensureByKey(
    HOUSEHOLD.people,
    (p) => p.key,
    (p) =>
      ensure(
        () => findUserIdByEmail(tx, p.email),
        async () => (await createUser(tx, { name: p.name, email: p.email })).id,
      ),
  );
  const accounts = await ensureByKey(
    HOUSEHOLD.accounts,
    (a) => a.key,
    (a) =>
      ensure(
        () => findAccountIdByProviderId(tx, { provider: PROVIDER, providerAccountId: providerAccountId(a.key) }),
        () =>
          createAccount(tx, ACTOR, {
            userId: people.get(a.owner)!,
            name: a.name,
            officialName: a.officialName,
            type: a.type,
            subtype: a.subtype,
            mask: a.mask,
            isoCurrencyCode: a.currency,
            providerAccountId: providerAccountId(a.key),
          }),
      ),
  );
  const tags = await ensureByKey(
    HOUSEHOLD.tags,
    (t) => t.slug,
    (t) =>
      ensure(
        () => findTagIdBySlug(tx, t.slug),
        () => createTag(tx, ACTOR, { slug: t.slug, displayName: t.displayName, color: t.color }),
      ),
  );
  const counterparties = await ensureByKey(
    HOUSEHOLD.counterparties,
    (c) => c.key,
    (c) =>
      ensure(
        () => findCounterpartyIdByName(tx, c.name),
        () => createCounterparty(tx, ACTOR, { name: c.name, type: c.type, notes: c.notes }),
      ),
  );
  return { accounts, tags, counterparties };
}

/**
 * Balances follow from the transactions: a depository account holds its
 * opening balance minus its net outflow; a card owes its net spending and has
 * the rest of its limit available. Integer cents throughout.
 */
async function updateBalances(tx: Em, accounts: Ids): Promise<void> {
  const net = await netCentsByAccount(tx, [...accounts.values()]);
  for (const a of HOUSEHOLD.accounts) {
    const id = accounts.get(a.key)!;
    const spent = net.get(id)!;
    const balances =
      a.type === "credit"
        ? {
            balanceCurrent: formatCents(spent),
            balanceAvailable: formatCents(BigInt(a.creditLimit) - spent),
            balanceLimit: formatCents(a.creditLimit),
          }
        : {
            balanceCurrent: formatCents(BigInt(a.openingBalance) - spent),
            balanceAvailable: formatCents(BigInt(a.openingBalance) - spent),
          };
    await setAccountBalances(tx, ACTOR, { id, ...balances });
  }
}

/** Each planted comment once: a rerun finds it on its transaction and skips it. */
async function addComments(tx: Em, accounts: Ids, transactions: DemoTransaction[]): Promise<number> {
  const commented = transactions.filter((t) => t.comment !== null);
  let inserted = 0;
  for (const a of HOUSEHOLD.accounts) {
    const mine = commented.filter((t) => t.account === a.key);
    const ids = await findImportedTransactionIds(tx, {
      accountId: accounts.get(a.key)!,
      provider: PROVIDER,
      providerTransactionIds: mine.map((t) => t.id),
    });
    for (const t of mine) {
      const transactionId = ids.get(t.id);
      // A transaction the household deleted keeps no new comments.
      if (!transactionId || (await findCommentId(tx, transactionId, t.comment!))) continue;
      await addComment(tx, ACTOR, transactionId, t.comment!);
      inserted++;
    }
  }
  return inserted;
}

/**
 * Loads (or tops up) the demo household in one database transaction and
 * returns what is there. `today` (YYYY-MM-DD, default the current UTC date)
 * ends the window: the 365 days before it.
 */
export async function loadDemo(em: Em, opts: { today?: string } = {}): Promise<DemoSummary> {
  const plan = generateDemo(HOUSEHOLD, opts.today ?? new Date().toISOString().slice(0, 10));
  const slugs = [...new Set(plan.transactions.flatMap((t) => (t.category ? [t.category] : [])))];
  const currencyOf = new Map(HOUSEHOLD.accounts.map((a) => [a.key, a.currency]));

  return em.transactional(async (tx) => {
    const { accounts, tags, counterparties } = await ensureHousehold(tx);
    // Categories are seeded by the migrations; one the household deleted leaves its transactions uncategorized.
    const categories = await categoryIdsBySlug(tx, slugs);
    const rows: NewTransaction[] = plan.transactions.map((t) => ({
      accountId: accounts.get(t.account)!,
      amount: formatCents(t.cents),
      isoCurrencyCode: currencyOf.get(t.account)!,
      date: t.date,
      provider: PROVIDER,
      providerTransactionId: t.id,
      providerName: t.name,
      providerMerchantName: t.merchant,
      providerCategoryPrimary: t.providerCategoryPrimary,
      providerCategoryDetailed: t.providerCategoryDetailed,
      categoryId: t.category ? (categories.get(t.category) ?? null) : null,
      categorySource: "system",
      tagIds: t.tags.map((slug) => tags.get(slug)!),
      counterpartyId: t.counterparty ? counterparties.get(t.counterparty)! : null,
    }));
    const inserted = await insertTransactions(tx, rows);
    await updateBalances(tx, accounts);
    const insertedComments = await addComments(tx, accounts, plan.transactions);
    return {
      ...(await summarize(tx, [...accounts.values()])),
      insertedTransactions: inserted.length,
      insertedComments,
      from: plan.from,
      to: plan.to,
    };
  });
}

/** What the demo's accounts hold now (read-only, for the report). */
async function summarize(tx: Em, accountIds: string[]) {
  return { ...(await accountContents(tx, accountIds)), accounts: accountIds.length };
}

export function describeDemo(s: DemoSummary): string {
  const currencies = Object.entries(s.byCurrency)
    .map(([c, n]) => `${n} ${c}`)
    .join(", ");
  return [
    `Demo household loaded (${s.from} to ${s.to}):`,
    `  users          ${s.users} (${HOUSEHOLD.people.map((p) => p.email).join(", ")})`,
    `  accounts       ${s.accounts}`,
    `  transactions   ${s.transactions} (${currencies}); ${s.insertedTransactions} new this run`,
    `  categorized    ${s.categorized}, tagged ${s.tagged}`,
    `  comments       ${s.comments}; ${s.insertedComments} new this run`,
    "",
  ].join("\n");
}
