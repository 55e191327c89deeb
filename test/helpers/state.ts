import type { Em } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";

/**
 * A checksum of every row of every Coffer table, to assert that a refused
 * request changed nothing. An API key's last_used_at is left out: using a key
 * may stamp it (at most once a minute), which is a read, not a change of state.
 * So is the login_attempts table: a refused sign-in must be recorded, since
 * that record is what the sign-in rate limit counts.
 */
export async function databaseChecksum(em: Em): Promise<string> {
  const tables = await query<{ table_name: string; columns: string }>(
    em,
    `select quote_ident(table_name) as table_name,
       string_agg(quote_ident(column_name), ', ' order by ordinal_position) as columns
     from information_schema.columns
     where table_schema = 'public' and column_name <> 'last_used_at' and table_name <> 'login_attempts'
     group by table_name order by 1`,
  );
  // One statement for all tables: the fuzz test takes hundreds of these.
  const rows = await query<{ name: string; sum: string | null }>(
    em,
    tables
      .map(
        (t, i) =>
          `select ${i} as n, '${t.table_name}' as name, (select md5(string_agg(r::text, '|' order by r::text)) ` +
          `from (select ${t.columns} from ${t.table_name}) r) as sum`,
      )
      .join(" union all ") + " order by n",
  );
  return rows.map((r) => `${r.name}:${r.sum ?? "empty"}`).join("\n");
}
