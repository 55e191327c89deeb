import {
  API_KEY_SCOPES,
  ACTOR_TYPES,
  ApiKeyEntity,
  type ActorType,
  type ApiKey,
  type ApiKeyScope,
} from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { withShortId } from "../ids/insert.js";
import { resolveUser } from "../users/users.js";
import { displayPrefix, generateApiKey, hashSecret, looksLikeApiKey } from "./key-hash.js";
import { findByIdOrShortId } from "../ids/find.js";
import { keyViewById, listKeyViews, touchKeyByHash, type KeyViewRow } from "../db/tables/api-keys.js";
import { parseText } from "../shared/validate.js";
import { MISSING_CREDENTIALS_MESSAGE } from "../../common/credentials.js";
import { nowOf } from "../clock.js";
import type { ApiKeyCache, KeyPrincipal } from "./key-cache.js";

/** last_used_at is refreshed at most this often, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The key a call presents, as a principal. With a cache (one per core, see
 * key-cache.ts), a key authenticated in the last minute is not read again;
 * the cache forgets a key the moment it is revoked.
 */
export async function authenticateKey(em: Em, presented: string | null, cache?: ApiKeyCache): Promise<KeyPrincipal> {
  if (!presented) throw new CofferError("MISSING_CREDENTIALS", MISSING_CREDENTIALS_MESSAGE);
  if (!looksLikeApiKey(presented)) throw new CofferError("INVALID_API_KEY", "The API key is not valid");
  const hash = hashSecret(presented);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const ticket = cache?.ticket() ?? 0;
  // One plain indexed query (no entity hydration); the last_used_at refresh rides on it.
  const key = await touchKeyByHash(em, hash, TOUCH_INTERVAL_MS / 1000);
  if (!key) throw new CofferError("INVALID_API_KEY", "The API key is not valid");
  if (key.revoked) throw new CofferError("REVOKED_API_KEY", "The API key has been revoked");
  const principal: KeyPrincipal = {
    kind: "key",
    keyId: key.id,
    keyShortId: key.short_id,
    keyName: key.name,
    scope: key.scope,
    actorType: key.actor_type,
    userId: key.user_id,
  };
  cache?.put(hash, principal, ticket);
  return principal;
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
  if (!(ACTOR_TYPES as readonly string[]).includes(value))
    throw validation(`actor_type must be one of ${ACTOR_TYPES.join(", ")}`);
  return value as ActorType;
}

export const parseKeyName = (raw: string | undefined) => parseText(raw, "name", { max: 200 });

export interface NewKeyInput {
  name: string;
  scope: ApiKeyScope;
  actorType?: ActorType;
  userId?: string | null;
}

/** Creates a key and returns it with its plaintext, which is never stored. */
export async function insertApiKey(em: Em, input: NewKeyInput): Promise<{ key: ApiKeyView; plaintext: string }> {
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
      createdAt: nowOf(em),
      lastUsedAt: null,
      revokedAt: null,
    }),
  );
  return { key: await loadApiKey(em, id), plaintext };
}

export async function createApiKey(
  em: Em,
  req: { name: string; scope: string; userId?: string; actorType?: string },
): Promise<{ key: ApiKeyView; plaintext: string }> {
  const name = parseKeyName(req.name);
  const scope = parseScope(req.scope);
  const actorType = parseActorType(req.actorType);
  const user = req.userId ? await resolveUser(em, req.userId) : null;
  return insertApiKey(em, { name, scope, actorType, userId: user?.id ?? null });
}

/** What the API shows of a key (never its hash), with its user's short id. */
export type ApiKeyView = Pick<
  ApiKey,
  "id" | "shortId" | "name" | "scope" | "actorType" | "userId" | "keyPrefix" | "createdAt" | "lastUsedAt" | "revokedAt"
> & { userShortId: string | null };

const date = (v: string | null) => (v === null ? null : new Date(v));
const keyView = (r: KeyViewRow): ApiKeyView => ({
  ...r,
  createdAt: new Date(r.createdAt),
  lastUsedAt: date(r.lastUsedAt),
  revokedAt: date(r.revokedAt),
});

export async function listApiKeys(em: Em): Promise<ApiKeyView[]> {
  const rows = await listKeyViews(em);
  return rows.map(keyView);
}

/**
 * One key by UUID. The calling key is read this way on every `GET /keys/me`
 * (what `coffer` login checks and the MCP gateway call), so it is one prepared statement.
 */
export async function loadApiKey(em: Em, id: string): Promise<ApiKeyView> {
  const row = await keyViewById(em, id);
  if (!row) throw notFound("API key");
  return keyView(row);
}

export async function revokeApiKey(em: Em, rawId: string): Promise<ApiKeyView> {
  const key = await findByIdOrShortId(em, ApiKeyEntity, rawId);
  if (!key) throw notFound("API key");
  if (!key.revokedAt) {
    await em.nativeUpdate(ApiKeyEntity, { id: key.id, revokedAt: null }, { revokedAt: nowOf(em) });
  }
  return loadApiKey(em, key.id);
}
