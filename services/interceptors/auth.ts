import { getOption } from "@bufbuild/protobuf";
import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { Scope, admin_only, required_scope } from "../../gen/coffer/v1/options_pb.js";
import { authenticateKey } from "../auth/api-keys.js";
import type { ApiKeyCache } from "../auth/key-cache.js";
import { authenticateSession } from "../auth/sessions.js";
import { kPrincipal, type Principal } from "../context.js";
import type { Em } from "../db/orm.js";
import { CofferError } from "../errors/coffer-error.js";

/** The standard gRPC health service is public by definition; it cannot carry our option. */
const PUBLIC_PACKAGES = ["grpc.health.v1."];

function declaredScope(method: DescMethod): Scope {
  if (PUBLIC_PACKAGES.some((p) => method.parent.typeName.startsWith(p))) return Scope.PUBLIC;
  const scope = getOption(method, required_scope);
  // Fail closed: a method someone forgot to annotate needs the strongest scope.
  return scope === Scope.UNSPECIFIED ? Scope.FULL_ACCESS : scope;
}

/** What a method asks of its caller, as its proto options declare it. */
export interface MethodAccess {
  scope: Scope;
  adminOnly: boolean;
}

/**
 * getOption decodes a method's options anew on every call (about a tenth of
 * a millisecond each, twice per RPC), so each method's access is read once:
 * the entry guard asks for it when it wraps the handlers at start.
 */
const accessByMethod = new WeakMap<DescMethod, MethodAccess>();

export function methodAccess(method: DescMethod): MethodAccess {
  let access = accessByMethod.get(method);
  if (!access) {
    access = { scope: declaredScope(method), adminOnly: getOption(method, admin_only) };
    accessByMethod.set(method, access);
  }
  return access;
}

export const requiredScopeOf = (method: DescMethod): Scope => methodAccess(method).scope;

/** What a call presents: an API key (X-API-Key) and/or a console session token (x-coffer-session). */
export interface Credentials {
  apiKey: string | null;
  session: string | null;
}

/**
 * The one authorization of a call: resolves the presented API key, or else
 * the console session, and enforces the scope the proto declares for the
 * method (a session's scope comes from its role), and for an admin_only
 * method with a session, the admin role. Undefined for a public method (no
 * credential needed, none looked at). The core's entry guard
 * (services/entry.ts) runs it before the request body is read.
 */
export async function authorizeCall(
  em: Em,
  method: DescMethod,
  credentials: Credentials,
  keys?: ApiKeyCache,
): Promise<Principal | undefined> {
  const { scope: required, adminOnly } = methodAccess(method);
  if (required === Scope.PUBLIC) return undefined;
  // A key wins over a session: it is what a program sends on purpose.
  const principal =
    credentials.apiKey || !credentials.session
      ? await authenticateKey(em, credentials.apiKey, keys)
      : await authenticateSession(em, credentials.session);
  if (required === Scope.FULL_ACCESS && principal.scope !== "full_access") {
    const who = principal.kind === "session" ? `a ${principal.role}'s session is read_only` : "this key is read_only";
    throw new CofferError("INSUFFICIENT_SCOPE", `${method.name} needs a full_access key; ${who}`);
  }
  if (principal.kind === "session" && principal.role !== "admin" && adminOnly) {
    throw new CofferError("FORBIDDEN", `${method.name} manages access: it needs an admin, not a ${principal.role}`);
  }
  return principal;
}

/**
 * Fails closed: a method that needs a key runs only with the principal the
 * entry guard put into the context values. Reaching it without one means the
 * guard was left out of the server, which is a bug, never a free pass.
 */
export const authInterceptor: Interceptor = (next) => async (req) => {
  if (requiredScopeOf(req.method) !== Scope.PUBLIC && !req.contextValues.get(kPrincipal)) {
    throw new Error(`${req.method.name} reached without an authorized principal; is the entry guard installed?`);
  }
  return next(req);
};
