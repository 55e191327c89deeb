import type { Em } from "../orm.js";
import { query } from "../sql.js";

export interface CursorKeyRow {
  generation: string;
  secret: Buffer;
  /** When the next key replaced this one (unix ms), or null for the newest. */
  replaced_at: string | null;
}

/** Every key, oldest generation first. */
export async function listCursorKeys(em: Em): Promise<CursorKeyRow[]> {
  return query<CursorKeyRow>(
    em,
    `select generation::text, secret,
       (extract(epoch from lead(created_at) over (order by generation)) * 1000)::bigint::text as replaced_at
     from cursor_keys order by generation`,
  );
}

/** Whether the newest key is at least `ageSeconds` old at `now`; undefined when there is no key. */
export async function newestCursorKeyIsDue(em: Em, now: Date, ageSeconds: number): Promise<boolean | undefined> {
  const [newest] = await query<{ due: boolean }>(
    em,
    `select created_at <= ?::timestamptz - make_interval(secs => ?) as due
     from cursor_keys order by generation desc limit 1`,
    [now, ageSeconds],
  );
  return newest?.due;
}

/** A key made at `now` (its age, and the end of the one it replaces, are judged by the core's clock). */
export async function insertCursorKey(em: Em, secret: Buffer, now: Date): Promise<void> {
  await query(em, `insert into cursor_keys (secret, created_at) values (?, ?::timestamptz)`, [secret, now]);
}

/** Deletes every key replaced by a key more than `graceSeconds` old at `now`. */
export async function deleteReplacedCursorKeys(em: Em, now: Date, graceSeconds: number): Promise<void> {
  await query(
    em,
    `delete from cursor_keys k where exists (select 1 from cursor_keys n
       where n.generation > k.generation and n.created_at < ?::timestamptz - make_interval(secs => ?))`,
    [now, graceSeconds],
  );
}
