import type { Em } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";

/**
 * A checksum of every row of every Coffer table, to assert that a refused
 * request changed nothing. An API key's last_used_at is left out: using a key
 * may stamp it (at most once a minute), which is a read, not a change of state.
 */
export async function databaseChecksum(em: Em): Promise<string> {
  const tables = await query<{ table_name: string; columns: string }>(
    em,
    `select quote_ident(table_name) as table_name,
       string_agg(quote_ident(column_name), ', ' order by ordinal_position) as columns
     from information_schema.columns
     where table_schema = 'public' and column_name <> 'last_used_at'
     group by table_name order by 1`,
  );
  const parts: string[] = [];
  for (const t of tables) {
    const [row] = await query<{ sum: string | null }>(
      em,
      `select md5(string_agg(r::text, '|' order by r::text)) as sum from (select ${t.columns} from ${t.table_name}) r`,
    );
    parts.push(`${t.table_name}:${row.sum ?? "empty"}`);
  }
  return parts.join("\n");
}
