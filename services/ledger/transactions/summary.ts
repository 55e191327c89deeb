import type { Em } from "../../db/orm.js";
import { transactionSummaryRows, type SummaryRow } from "../../db/queries/transaction-summary.js";
import { CofferError } from "../../errors/coffer-error.js";
import { resolveFilter, type TransactionFilterInput } from "./filter.js";

import { SUMMARY_GROUPS as GROUP_BY } from "../../../common/enums.js";
export { GROUP_BY };
export type GroupBy = (typeof GROUP_BY)[number];

export function parseGroupBy(raw: string): GroupBy {
  const g = (raw.trim() || "category") as GroupBy;
  if (!GROUP_BY.includes(g))
    throw new CofferError("INVALID_PARAMETER", `group_by must be one of ${GROUP_BY.join(", ")}`);
  return g;
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
 * sum), net and count per group and currency, and per currency overall,
 * summed by the database as NUMERIC and never across currencies. Groups are
 * ordered by key (chronological for the time groupings), currencies by code.
 */
export async function summarizeTransactions(
  em: Em,
  f: TransactionFilterInput | undefined,
  rawGroupBy: string,
): Promise<Summary> {
  const groupBy = parseGroupBy(rawGroupBy);
  const filter = await resolveFilter(em, f);
  const rows = await transactionSummaryRows(em, filter.predicate, groupBy);
  const totalsOf = (r: SummaryRow): CurrencyTotals => ({
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
