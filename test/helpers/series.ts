import type { Em } from "../../services/db/orm.js";
import { pgArray, query } from "../../services/db/sql.js";
import { newTransactions } from "./ledger.js";
import type { NewTransaction } from "../../services/ledger/transactions/insert.js";

// Dates relative to today (UTC) and transaction factories for the series tests: detection judges
// "active" and "next expected" from the real clock, so their histories end near today.

const DAY_MS = 86_400_000;

export const today = () => new Date().toISOString().slice(0, 10);

export const daysFromToday = (n: number) =>
  new Date(Date.parse(`${today()}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** Day `dom` (clamped to short months) of the months `from` to `to` counted from this one (-1: last month). */
export function monthDays(from: number, to: number, dom: number): string[] {
  const now = new Date(`${today()}T00:00:00Z`);
  const out: string[] = [];
  for (let m = from; m <= to; m++) {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + m, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
    out.push(
      new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(dom, last))).toISOString().slice(0, 10),
    );
  }
  return out;
}

/** Inserts transactions into an account; returns their short ids in input order. */
export async function insertCharges(em: Em, accountId: string, items: Partial<NewTransaction>[]): Promise<string[]> {
  const ids = await newTransactions(em, accountId, items);
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.short_id]));
  return ids.map((id) => byId.get(id)!);
}

/** The series (short id, or null) of each transaction, by short id. */
export async function seriesOf(em: Em, shortIds: string[]): Promise<(string | null)[]> {
  const rows = await query<{ short_id: string; series: string | null }>(
    em,
    `select t.short_id, s.short_id as series from transactions t left join series s on s.id = t.series_id
     where t.short_id = any(?::text[])`,
    [pgArray(shortIds)],
  );
  const by = new Map(rows.map((r) => [r.short_id, r.series]));
  return shortIds.map((id) => by.get(id) ?? null);
}
