import { getOption } from "@bufbuild/protobuf";
import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { Scope, required_scope } from "../../gen/coffer/v1/options_pb.js";
import { authenticateKey } from "../auth/api-keys.js";
import { kEm, kPrincipal } from "../context.js";
import { CofferError } from "../errors/coffer-error.js";

/** The standard gRPC health service is public by definition; it cannot carry our option. */
const PUBLIC_PACKAGES = ["grpc.health.v1."];

export function requiredScopeOf(method: DescMethod): Scope {
  if (PUBLIC_PACKAGES.some((p) => method.parent.typeName.startsWith(p))) return Scope.PUBLIC;
  const scope = getOption(method, required_scope);
  // Fail closed: a method someone forgot to annotate needs the strongest scope.
  return scope === Scope.UNSPECIFIED ? Scope.FULL_ACCESS : scope;
}

/**
 * Resolves the X-API-Key once per RPC, enforces the scope the proto declares
 * for the method, and puts the principal into the context values.
 */
export const authInterceptor: Interceptor = (next) => async (req) => {
  const required = requiredScopeOf(req.method);
  if (required === Scope.PUBLIC) return next(req);
  const em = req.contextValues.get(kEm);
  if (!em) throw new Error("no entity manager in the request context");
  const principal = await authenticateKey(em, req.header.get("x-api-key"));
  if (required === Scope.FULL_ACCESS && principal.scope !== "full_access") {
    throw new CofferError("INSUFFICIENT_SCOPE", `${req.method.name} needs a full_access key; this key is read_only`);
  }
  req.contextValues.set(kPrincipal, principal);
  return next(req);
};
