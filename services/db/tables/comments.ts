import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** The statements that write and read `comments`, the household's notes on a transaction. */

/** How a row is named in a lookup: its UUID or its short id. */
type IdColumn = "id" | "short_id";

/** The oldest comment with exactly this body on the transaction named by `column`, or null. */
export async function findCommentIdByBody(
  em: Em,
  transaction: { column: IdColumn; value: string },
  body: string,
): Promise<string | null> {
  const rows = await query<{ id: string }>(
    em,
    `select c.id from comments c join transactions t on t.id = c.transaction_id
     where t.${transaction.column} = ? and c.body = ? order by c.created_at, c.id limit 1`,
    [transaction.value, body],
  );
  return rows[0]?.id ?? null;
}

export interface NewComment {
  id: string;
  short_id: string;
  transaction_id: string;
  body: string;
  author_type: string;
  author_key_id: string | null;
  author_name: string;
}

/**
 * Inserts comments in one statement; one whose short id is taken is skipped
 * (the caller retries it with a new one). Returns the ids inserted.
 * clock_timestamp() keeps comments made in quick succession in order.
 */
export async function insertComments(em: Em, rows: readonly NewComment[]): Promise<string[]> {
  const inserted = await query<{ id: string }>(
    em,
    `insert into comments
       (id, short_id, transaction_id, body, author_type, author_key_id, author_name, created_at, updated_at)
     select v.id, v.short_id, v.transaction_id, v.body, v.author_type, v.author_key_id, v.author_name,
       clock_timestamp(), clock_timestamp()
     from jsonb_to_recordset(?::jsonb) as v(id uuid, short_id text, transaction_id uuid, body text, author_type text,
       author_key_id uuid, author_name text)
     on conflict (short_id) do nothing returning id`,
    [JSON.stringify(rows)],
  );
  return inserted.map((r) => r.id);
}

export interface LockedComment {
  id: string;
  short_id: string;
  body: string;
}

/** The comment of this transaction named by `column`, locked until the surrounding transaction ends. */
export async function lockTransactionComment(
  tx: Em,
  transactionId: string,
  comment: { column: IdColumn; value: string },
): Promise<LockedComment | null> {
  const [row] = await query<LockedComment>(
    tx,
    `select id, short_id, body from comments where ${comment.column} = ? and transaction_id = ? for update`,
    [comment.value, transactionId],
  );
  return row ?? null;
}

export async function setCommentBody(tx: Em, id: string, body: string): Promise<void> {
  await query(tx, `update comments set body = ?, updated_at = clock_timestamp() where id = ?`, [body, id]);
}

export async function deleteCommentRow(tx: Em, id: string): Promise<void> {
  await query(tx, `delete from comments where id = ?`, [id]);
}
