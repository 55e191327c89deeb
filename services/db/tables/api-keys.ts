import type { ActorType, ApiKeyScope } from "../entities/index.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

export interface KeyAuthRow {
  id: string;
  short_id: string;
  name: string;
  scope: ApiKeyScope;
  actor_type: ActorType;
  user_id: string | null;
  revoked: boolean;
}

/**
 * The key with this hash, revoked or not; refreshes its last_used_at when the
 * stamp is older than `touchSeconds` (so reads do not all turn into writes).
 * A prepared statement: every RPC made with a key runs it.
 */
export async function touchKeyByHash(em: Em, keyHash: string, touchSeconds: number): Promise<KeyAuthRow | undefined> {
  const [key] = await query<KeyAuthRow>(
    em,
    `with k as (select id, short_id, name, scope, actor_type, user_id, revoked_at, last_used_at
                  from api_keys where key_hash = ?),
          touched as (update api_keys set last_used_at = now()
                      from k where api_keys.id = k.id and k.revoked_at is null
                        and (k.last_used_at is null or k.last_used_at < now() - make_interval(secs => ?)))
     select id, short_id, name, scope, actor_type, user_id, revoked_at is not null as revoked from k`,
    [keyHash, touchSeconds],
    { prepare: true },
  );
  return key;
}

/** A key as the API shows it (never its hash), timestamps as UTC ISO text, with its user's short id. */
export interface KeyViewRow {
  id: string;
  shortId: string;
  name: string;
  scope: ApiKeyScope;
  actorType: ActorType;
  userId: string | null;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  userShortId: string | null;
}

const KEY_VIEW_SQL = `select k.id, k.short_id as "shortId", k.name, k.scope, k.actor_type as "actorType",
    k.user_id as "userId",
    k.key_prefix as "keyPrefix", ${iso("k.created_at")} as "createdAt", ${iso("k.last_used_at")} as "lastUsedAt",
    ${iso("k.revoked_at")} as "revokedAt", u.short_id as "userShortId"
  from api_keys k left join users u on u.id = k.user_id`;

export async function listKeyViews(em: Em): Promise<KeyViewRow[]> {
  return query<KeyViewRow>(em, `${KEY_VIEW_SQL} order by k.created_at, k.id`);
}

/** One key by UUID; a prepared statement, since every `GET /keys/me` reads the calling key this way. */
export async function keyViewById(em: Em, id: string): Promise<KeyViewRow | undefined> {
  const [row] = await query<KeyViewRow>(em, `${KEY_VIEW_SQL} where k.id = ?`, [id], { prepare: true });
  return row;
}
