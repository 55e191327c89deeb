import type { Em } from "../../db/orm.js";
import { query } from "../../db/sql.js";
import { CofferError } from "../../errors/coffer-error.js";
import { resolveFilter, type TransactionFilterInput } from "./filter.js";

import { SUMMARY_GROUPS as GROUP_BY } from "../../../common/enums.js";
export { GROUP_BY };
export type GroupBy = (typeof GROUP_BY)[number];

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

export function parseGroupBy(raw: string): GroupBy {
  const g = (raw.trim() || "category") as GroupBy;
  if (!GROUP_BY.includes(g))
    throw new CofferError("INVALID_PARAMETER", `group_by must be one of ${GROUP_BY.join(", ")}`);
  return g;
}

interface Row {
  key: string | null;
  label: string | null;
  iso_currency_code: string;
  money_out: string;
  money_in: string;
  net: string;
  count: string;
  is_total: number;
}

/** Sums for one currency; amounts are exact decimal text. */
export interface CurrencyTotals {
  isoCurrencyCode: string;
  moneyOut: string;
  moneyIn: string;
  net: string;
  count: bigint;
}

export interface SummaryGroup {
  key: string;
  label: string;
  totals: CurrencyTotals[];
}

export interface Summary {
  groupBy: GroupBy;
  groups: SummaryGroup[];
  totals: CurrencyTotals[];
}

/**
 * Money out (positive amounts), money in (negative amounts, as a positive
 * sum), net and count per group and currency, and per currency overall.
 * Everything is summed in SQL as NUMERIC and never across currencies; one
 * scan computes both levels (grouping sets). Groups are ordered by key
 * (chronological for the time groupings), currencies by code.
 */
export async function summarizeTransactions(
  em: Em,
  f: TransactionFilterInput | undefined,
  rawGroupBy: string,
): Promise<Summary> {
  const groupBy = parseGroupBy(rawGroupBy);
  const filter = await resolveFilter(em, f);
  const g = GROUPS[groupBy];
  const rows = await query<Row>(
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
    filter.params,
  );
  const totalsOf = (r: Row): CurrencyTotals => ({
    isoCurrencyCode: r.iso_currency_code,
    moneyOut: r.money_out,
    moneyIn: r.money_in,
    net: r.net,
    count: BigInt(r.count),
  });
  const groups: SummaryGroup[] = [];
  const totals: CurrencyTotals[] = [];
  for (const r of rows) {
    if (r.is_total !== 0) {
      totals.push(totalsOf(r));
      continue;
    }
    const last = groups[groups.length - 1];
    if (last && last.key === r.key) last.totals.push(totalsOf(r));
    else groups.push({ key: r.key ?? "", label: r.label ?? "", totals: [totalsOf(r)] });
  }
  return { groupBy, groups, totals };
}
