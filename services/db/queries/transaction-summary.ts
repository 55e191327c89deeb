import type { SUMMARY_GROUPS } from "../../../common/enums.js";
import type { Em } from "../orm.js";
import { query } from "../sql.js";
import type { TransactionPredicate } from "./transaction-filter.js";

export type GroupBy = (typeof SUMMARY_GROUPS)[number];

/**
 * The group key and label of a row aliased `t` (with its category `c`).
 * category: the assigned category's slug (a child, not rolled up to its
 * parent; none is "uncategorized"); month "YYYY-MM"; ISO week "YYYY-Www";
 * day "YYYY-MM-DD".
 */
const GROUPS: Record<GroupBy, { key: string; label: string }> = {
  category: {
    key: `coalesce(c.slug, 'uncategorized')`,
    label: `coalesce(c.display_name,
      (select display_name from categories where slug = 'uncategorized'), 'Uncategorized')`,
  },
  month: { key: `to_char(t.date, 'YYYY-MM')`, label: `to_char(t.date, 'FMMonth YYYY')` },
  week: {
    key: `to_char(t.date, 'IYYY-"W"IW')`,
    label: `'Week of ' || to_char(date_trunc('week', t.date), 'YYYY-MM-DD')`,
  },
  day: { key: `to_char(t.date, 'YYYY-MM-DD')`, label: `to_char(t.date, 'Dy DD Mon YYYY')` },
};

/** One group's sums in one currency, or (`is_total` 1, no key) one currency's sums overall. */
export interface SummaryRow {
  key: string | null;
  label: string | null;
  iso_currency_code: string;
  money_out: string;
  money_in: string;
  net: string;
  count: string;
  is_total: number;
}

/**
 * Money out (positive amounts), money in (negative amounts, as a positive
 * sum), net and count per group and currency, and per currency overall.
 * Everything is summed as NUMERIC and never across currencies; one scan
 * computes both levels (grouping sets). Groups come first, ordered by key
 * (chronological for the time groupings), then the totals; currencies by code.
 */
export async function transactionSummaryRows(
  em: Em,
  filter: TransactionPredicate,
  groupBy: GroupBy,
): Promise<SummaryRow[]> {
  const g = GROUPS[groupBy];
  return query<SummaryRow>(
    em,
    `with matched as (
       select t.amount, t.iso_currency_code, ${g.key} as key, ${g.label} as label
       from transactions t left join categories c on c.id = t.category_id
       where t.deleted_at is null and (${filter.sql})
     )
     select key, label, iso_currency_code,
       coalesce(sum(amount) filter (where amount > 0), 0.00)::text as money_out,
       coalesce(-sum(amount) filter (where amount < 0), 0.00)::text as money_in,
       sum(amount)::text as net,
       count(*)::text as count,
       grouping(key, label) as is_total
     from matched
     group by grouping sets ((key, label, iso_currency_code), (iso_currency_code))
     order by is_total, key, iso_currency_code`,
    [...filter.params],
  );
}
