import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The raw statements on `accounts` (the ORM entity AccountEntity covers
 * single-row reads and writes of manual accounts).
 */

/** The UUID of the account a lookup names, or null. */
export async function findAccountId(
  em: Em,
  lookup: { column: "id" | "short_id"; value: string },
): Promise<string | null> {
  const [row] = await query<{ id: string }>(em, `select id from accounts where ${lookup.column} = ?`, [lookup.value]);
  return row?.id ?? null;
}

/** The short id of the account a lookup names. */
export async function accountShortIdByLookup(
  em: Em,
  lookup: { column: "id" | "short_id"; value: string },
): Promise<string | undefined> {
  const [row] = await query<{ short_id: string }>(em, `select short_id from accounts where ${lookup.column} = ?`, [
    lookup.value,
  ]);
  return row?.short_id;
}

/** The currency of the account a person's live CSV connection with this item id imports into. */
export async function csvAccountCurrency(em: Em, userId: string, itemId: string): Promise<string | undefined> {
  const [row] = await query<{ iso_currency_code: string }>(
    em,
    `select a.iso_currency_code from accounts a join connections c on c.id = a.connection_id
     where c.user_id = ? and c.provider = 'csv' and c.provider_item_id = ? and c.status <> 'disconnected'`,
    [userId, itemId],
  );
  return row?.iso_currency_code;
}

/** An account as a provider reports it, cleaned; balances are decimal text or null. */
export interface SyncedAccountRow {
  shortId: string;
  providerAccountId: string;
  name: string;
  officialName: string | null;
  type: string;
  subtype: string | null;
  mask: string | null;
  balanceCurrent: string | null;
  balanceAvailable: string | null;
  balanceLimit: string | null;
  isoCurrencyCode: string;
}

/**
 * Inserts a connection's new accounts and updates the changed ones, keyed on
 * (connection, provider account id). The name is set on insert only (a
 * person may rename an account). Balances are kept when the provider reports
 * none of them. Rows that did not change are not written (and not returned).
 */
export async function upsertSyncedAccounts(
  tx: Em,
  conn: { id: string; userId: string; provider: string },
  list: readonly SyncedAccountRow[],
): Promise<{ id: string; provider_account_id: string; name: string; inserted: boolean }[]> {
  return query<{ id: string; provider_account_id: string; name: string; inserted: boolean }>(
    tx,
    `insert into accounts as a (id, short_id, user_id, connection_id, provider, provider_account_id, name,
       official_name, type, subtype, mask, balance_current, balance_available, balance_limit, iso_currency_code)
     select gen_random_uuid(), x.short_id, ?, ?, ?, x.pid, x.name, x.official_name, x.type, x.subtype, x.mask,
       x.cur::numeric, x.avail::numeric, x.lim::numeric, x.ccy
     from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
       ?::text[], ?::text[]) as x(short_id, pid, name, official_name, type, subtype, mask, cur, avail, lim, ccy)
     on conflict (connection_id, provider_account_id) where connection_id is not null do update set
       official_name = excluded.official_name, type = excluded.type, subtype = excluded.subtype,
       mask = excluded.mask, iso_currency_code = excluded.iso_currency_code,
       balance_current = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
         excluded.balance_limit) = 0 then a.balance_current else excluded.balance_current end,
       balance_available = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
         excluded.balance_limit) = 0 then a.balance_available else excluded.balance_available end,
       balance_limit = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
         excluded.balance_limit) = 0 then a.balance_limit else excluded.balance_limit end,
       updated_at = now()
     where (a.official_name, a.type, a.subtype, a.mask, a.iso_currency_code, a.balance_current,
         a.balance_available, a.balance_limit) is distinct from
       (excluded.official_name, excluded.type, excluded.subtype, excluded.mask, excluded.iso_currency_code,
         case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
           then a.balance_current else excluded.balance_current end,
         case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
           then a.balance_available else excluded.balance_available end,
         case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
           then a.balance_limit else excluded.balance_limit end)
     returning a.id, a.provider_account_id, a.name, (a.xmax = 0) as inserted`,
    [
      conn.userId,
      conn.id,
      conn.provider,
      pgArray(list.map((a) => a.shortId)),
      pgArray(list.map((a) => a.providerAccountId)),
      pgArray(list.map((a) => a.name)),
      pgArray(list.map((a) => a.officialName)),
      pgArray(list.map((a) => a.type)),
      pgArray(list.map((a) => a.subtype)),
      pgArray(list.map((a) => a.mask)),
      pgArray(list.map((a) => a.balanceCurrent)),
      pgArray(list.map((a) => a.balanceAvailable)),
      pgArray(list.map((a) => a.balanceLimit)),
      pgArray(list.map((a) => a.isoCurrencyCode)),
    ],
  );
}

/** A connection's accounts. */
export async function connectionAccounts(
  em: Em,
  connectionId: string,
): Promise<{ id: string; provider_account_id: string; iso_currency_code: string }[]> {
  return query<{ id: string; provider_account_id: string; iso_currency_code: string }>(
    em,
    `select id, provider_account_id, iso_currency_code from accounts where connection_id = ?`,
    [connectionId],
  );
}

/** Detaches a connection's accounts (it is disconnected; they and their transactions stay). */
export async function detachConnectionAccounts(tx: Em, connectionId: string): Promise<void> {
  await query(tx, `update accounts set connection_id = null, updated_at = now() where connection_id = ?`, [
    connectionId,
  ]);
}

/** What a rule reads of an account and its owner (short ids and names), by account UUID. */
export interface AccountOwnerRow {
  id: string;
  short_id: string;
  name: string;
  user_short_id: string;
  user_name: string;
}

export async function accountOwners(em: Em, ids: readonly string[]): Promise<AccountOwnerRow[]> {
  if (ids.length === 0) return [];
  return query<AccountOwnerRow>(
    em,
    `select a.id, a.short_id, a.name, u.short_id as user_short_id, u.name as user_name
     from accounts a join users u on u.id = a.user_id where a.id = any(?::uuid[])`,
    [pgArray(ids)],
  );
}
