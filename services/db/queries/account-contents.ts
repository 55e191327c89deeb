import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/** What a set of accounts holds, counted (the demo loader's report). */
export interface AccountContents {
  transactions: number;
  categorized: number;
  tagged: number;
  comments: number;
  /** Distinct owners of the accounts. */
  users: number;
  /** Transactions per currency code. */
  byCurrency: Record<string, number>;
}

export async function accountContents(em: Em, accountIds: readonly string[]): Promise<AccountContents> {
  const list = pgArray(accountIds);
  const [totals] = await query<Omit<AccountContents, "byCurrency">>(
    em,
    `select count(*)::int as transactions,
            count(*) filter (where category_id is not null)::int as categorized,
            count(*) filter (where cardinality(tag_ids) > 0)::int as tagged,
            (select count(*)::int from comments c join transactions t on t.id = c.transaction_id
              where t.account_id = any(?::uuid[])) as comments,
            (select count(distinct user_id)::int from accounts where id = any(?::uuid[])) as users
     from transactions where account_id = any(?::uuid[])`,
    [list, list, list],
  );
  const byCurrency = await query<{ iso_currency_code: string; n: number }>(
    em,
    `select iso_currency_code, count(*)::int as n from transactions
     where account_id = any(?::uuid[]) group by 1 order by 1`,
    [list],
  );
  return { ...totals, byCurrency: Object.fromEntries(byCurrency.map((r) => [r.iso_currency_code, r.n])) };
}
