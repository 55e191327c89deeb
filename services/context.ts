import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { ActorType, ApiKeyScope } from "./db/entities/index.js";
import type { LoginRole } from "./auth/roles.js";
import type { Em } from "./db/orm.js";
import { CofferError } from "./errors/coffer-error.js";

/** Who is calling: resolved once per RPC by the auth interceptor. */
export type Principal =
  | {
      kind: "key";
      keyId: string;
      keyShortId: string;
      keyName: string;
      scope: ApiKeyScope;
      actorType: ActorType;
      userId: string | null;
    }
  /** A person signed in to the web console (services/auth/sessions.ts); the role decides the scope. */
  | {
      kind: "session";
      sessionId: string;
      loginId: string;
      userId: string;
      userShortId: string;
      userName: string;
      email: string;
      role: LoginRole;
      scope: ApiKeyScope;
      expiresAt: Date;
    }
  /** The operator on the server itself (CLI commands that work straight on the database). */
  | { kind: "system"; name: string };

export const kPrincipal = createContextKey<Principal | undefined>(undefined, { description: "principal" });
export const kEm = createContextKey<Em | undefined>(undefined, { description: "per-request entity manager" });
/** The address the call came from: the REST gateway's x-coffer-client-ip, else the connection's peer. */
export const kPeer = createContextKey<string | undefined>(undefined, { description: "peer address" });
export const kLog = createContextKey<FastifyBaseLogger | undefined>(undefined, { description: "request logger" });

/**
 * What the entry guard (services/entry.ts) knows of a call: whether Connect
 * got as far as the interceptors (it decoded the request), and a failure the
 * guard found before that, which the error interceptor raises in its place.
 */
export interface EntryState {
  reached: boolean;
  failure?: unknown;
}
export const kEntry = createContextKey<EntryState | undefined>(undefined, { description: "entry guard state" });

export function requirePrincipal(ctx: HandlerContext): Principal {
  const p = ctx.values.get(kPrincipal);
  if (!p) throw new CofferError("MISSING_CREDENTIALS", "An API key is required in the X-API-Key header");
  return p;
}

export function emOf(ctx: HandlerContext): Em {
  const em = ctx.values.get(kEm);
  if (!em) throw new Error("no entity manager in the request context");
  return em;
}
