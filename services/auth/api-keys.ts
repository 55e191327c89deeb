import { create } from "@bufbuild/protobuf";
import { ApiKeySchema, type ApiKey as ApiKeyMsg } from "../../gen/coffer/v1/auth_pb.js";
import { API_KEY_SCOPES, ACTOR_TYPES, ApiKeyEntity, UserEntity, type ActorType, type ApiKey, type ApiKeyScope } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import type { Principal } from "../context.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { withShortId } from "../ids/insert.js";
import { ts, tsOrUndef } from "../shared/proto.js";
import { resolveUser } from "../users/users.js";
import { displayPrefix, generateApiKey, hashSecret, looksLikeApiKey } from "./key-hash.js";
import { findByIdOrShortId } from "../ids/find.js";
import { iso, query } from "../db/sql.js";

interface KeyRow {
  id: string;
  short_id: string;
  name: string;
  scope: ApiKeyScope;
  actor_type: ActorType;
  user_id: string | null;
  revoked: boolean;
}

/** last_used_at is refreshed at most this often, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

export async function authenticateKey(em: Em, presented: string | null): Promise<Extract<Principal, { kind: "key" }>> {
  if (!presented) throw new CofferError("MISSING_CREDENTIALS", "An API key is required in the X-API-Key header");
  // Every RPC runs this, so it is one plain indexed query (no entity hydration), and the
  // last_used_at refresh rides on it: the update happens only when the stamp is stale.
  const [key] = looksLikeApiKey(presented)
    ? await query<KeyRow>(
        em,
        `with k as (select id, short_id, name, scope, actor_type, user_id, revoked_at, last_used_at from api_keys where key_hash = ?),
              touched as (update api_keys set last_used_at = now()
                          from k where api_keys.id = k.id and k.revoked_at is null
                            and (k.last_used_at is null or k.last_used_at < now() - make_interval(secs => ?)))
         select id, short_id, name, scope, actor_type, user_id, revoked_at is not null as revoked from k`,
        [hashSecret(presented), TOUCH_INTERVAL_MS / 1000],
        { prepare: true },
      )
    : [];
  if (!key) throw new CofferError("INVALID_API_KEY", "The API key is not valid");
  if (key.revoked) throw new CofferError("REVOKED_API_KEY", "The API key has been revoked");
  return {
    kind: "key",
    keyId: key.id,
    keyShortId: key.short_id,
    keyName: key.name,
    scope: key.scope,
    actorType: key.actor_type,
    userId: key.user_id,
  };
}

export function parseScope(raw: string | undefined, fallback?: ApiKeyScope): ApiKeyScope {
  const value = raw || fallback;
  if (!value || !(API_KEY_SCOPES as readonly string[]).includes(value)) {
    throw validation(`scope must be one of ${API_KEY_SCOPES.join(", ")}`);
  }
  return value as ApiKeyScope;
}

function parseActorType(raw: string | undefined): ActorType {
  const value = raw || "user";
  if (!(ACTOR_TYPES as readonly string[]).includes(value)) throw validation(`actor_type must be one of ${ACTOR_TYPES.join(", ")}`);
  return value as ActorType;
}

export function parseKeyName(raw: string | undefined): string {
  const name = (raw ?? "").trim();
  if (!name) throw validation("name is required");
  if (name.length > 200) throw validation("name must be at most 200 characters");
  return name;
}

export interface NewKeyInput {
  name: string;
  scope: ApiKeyScope;
  actorType?: ActorType;
  userId?: string | null;
}

/** Creates a key and returns it with its plaintext, which is never stored. */
export async function insertApiKey(em: Em, input: NewKeyInput): Promise<{ key: ApiKey; plaintext: string }> {
  const plaintext = generateApiKey();
  const id = crypto.randomUUID();
  await withShortId((shortId) =>
    em.insert(ApiKeyEntity, {
      id,
      shortId,
      name: input.name,
      scope: input.scope,
      actorType: input.actorType ?? "user",
      userId: input.userId ?? null,
      keyHash: hashSecret(plaintext),
      keyPrefix: displayPrefix(plaintext),
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    }),
  );
  const key = await em.findOneOrFail(ApiKeyEntity, { id });
  return { key, plaintext };
}

export async function createApiKey(
  em: Em,
  req: { name: string; scope: string; userId?: string; actorType?: string },
): Promise<{ key: ApiKey; plaintext: string }> {
  const name = parseKeyName(req.name);
  const scope = parseScope(req.scope);
  const actorType = parseActorType(req.actorType);
  const user = req.userId ? await resolveUser(em, req.userId) : null;
  return insertApiKey(em, { name, scope, actorType, userId: user?.id ?? null });
}

export async function listApiKeys(em: Em): Promise<ApiKey[]> {
  return em.find(ApiKeyEntity, {}, { orderBy: { createdAt: "asc", id: "asc" } });
}

export async function revokeApiKey(em: Em, rawId: string): Promise<ApiKey> {
  const key = await findByIdOrShortId(em, ApiKeyEntity, rawId);
  if (!key) throw notFound("API key");
  if (!key.revokedAt) {
    await em.nativeUpdate(ApiKeyEntity, { id: key.id, revokedAt: null }, { revokedAt: new Date() });
  }
  return em.findOneOrFail(ApiKeyEntity, { id: key.id }, { refresh: true });
}

/** The calling key, presented, in one prepared statement (GET /keys/me runs on every `coffer` login check). */
export async function currentKey(em: Em, id: string): Promise<ApiKeyMsg> {
  type Row = Omit<PresentedKey, "createdAt" | "lastUsedAt" | "revokedAt"> & {
    // As UTC ISO 8601 text: raw SQL reads timestamptz as text in the session's zone otherwise.
    createdAt: string;
    lastUsedAt: string | null;
    revokedAt: string | null;
    user_short_id: string | null;
  };
  const [row] = await query<Row>(
    em,
    `select k.id, k.short_id as "shortId", k.name, k.scope, k.actor_type as "actorType", k.user_id as "userId",
            k.key_prefix as "keyPrefix", ${iso("k.created_at")} as "createdAt", ${iso("k.last_used_at")} as "lastUsedAt",
            ${iso("k.revoked_at")} as "revokedAt", u.short_id as user_short_id
       from api_keys k left join users u on u.id = k.user_id where k.id = ?`,
    [id],
    { prepare: true },
  );
  if (!row) throw notFound("API key");
  const date = (v: string | null) => (v === null ? null : new Date(v));
  const key = { ...row, createdAt: new Date(row.createdAt), lastUsedAt: date(row.lastUsedAt), revokedAt: date(row.revokedAt) };
  return apiKeyToProto(key, new Map(row.userId && row.user_short_id ? [[row.userId, row.user_short_id]] : []));
}

/** Short ids of the users the keys reference, for presenting `user_id`. */
export async function userShortIds(em: Em, keys: ApiKey[]): Promise<Map<string, string>> {
  const ids = [...new Set(keys.map((k) => k.userId).filter((x): x is string => !!x))];
  if (ids.length === 0) return new Map();
  const users = await em.find(UserEntity, { id: { $in: ids } });
  return new Map(users.map((u) => [u.id, u.shortId]));
}

/** What presenting a key reads of it. */
type PresentedKey = Pick<ApiKey, "id" | "shortId" | "name" | "scope" | "actorType" | "userId" | "keyPrefix" | "createdAt" | "lastUsedAt" | "revokedAt">;

export function apiKeyToProto(key: PresentedKey, userShortIdsById: Map<string, string>): ApiKeyMsg {
  return create(ApiKeySchema, {
    id: key.id,
    shortId: key.shortId,
    name: key.name,
    scope: key.scope,
    actorType: key.actorType,
    userId: key.userId ? userShortIdsById.get(key.userId) : undefined,
    keyPrefix: key.keyPrefix,
    createdAt: ts(key.createdAt),
    lastUsedAt: tsOrUndef(key.lastUsedAt),
    revokedAt: tsOrUndef(key.revokedAt),
  });
}
