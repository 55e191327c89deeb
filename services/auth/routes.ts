import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { ApiKeyService, DeviceCodeService, type ApiKeySchema } from "../../gen/coffer/v1/auth_pb.js";
import { emOf, requirePrincipal } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { CofferError } from "../errors/coffer-error.js";
import { ts, tsOrUndef } from "../shared/proto.js";
import { createApiKey, listApiKeys, loadApiKey, revokeApiKey, type ApiKeyView } from "./api-keys.js";
import { approveDeviceCode, createDeviceCode, denyDeviceCode, pollDeviceCode } from "./device-codes.js";
import { loginRoutes } from "./login-routes.js";

const apiKeyToProto = (key: ApiKeyView): MessageInitShape<typeof ApiKeySchema> => ({
  id: key.id,
  shortId: key.shortId,
  name: key.name,
  scope: key.scope,
  actorType: key.actorType,
  userId: key.userShortId ?? undefined,
  keyPrefix: key.keyPrefix,
  createdAt: ts(key.createdAt),
  lastUsedAt: tsOrUndef(key.lastUsedAt),
  revokedAt: tsOrUndef(key.revokedAt),
});

export function authRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(ApiKeyService, {
    async listApiKeys(_req, ctx) {
      return { apiKeys: (await listApiKeys(emOf(ctx))).map(apiKeyToProto) };
    },
    async createApiKey(req, ctx) {
      const { key, plaintext } = await createApiKey(emOf(ctx), req);
      return { apiKey: apiKeyToProto(key), key: plaintext };
    },
    async revokeApiKey(req, ctx) {
      const key = await revokeApiKey(emOf(ctx), req.id);
      // Other cores hear of it by NOTIFY; this one forgets the key before it answers.
      deps.keyCache.invalidate(key.id);
      return { apiKey: apiKeyToProto(key) };
    },
    async getCurrentKey(_req, ctx) {
      const principal = requirePrincipal(ctx);
      if (principal.kind !== "key") throw new CofferError("NOT_FOUND", "No API key in this call");
      return { apiKey: apiKeyToProto(await loadApiKey(emOf(ctx), principal.keyId)) };
    },
  });

  router.service(DeviceCodeService, {
    async createDeviceCode(req, ctx) {
      const config = {
        ttlSeconds: deps.config.deviceCodeTtlSeconds,
        verificationUrl: `${deps.config.publicUrl}/device`,
      };
      return createDeviceCode(emOf(ctx), config, req.name);
    },
    async pollDeviceCode(req, ctx) {
      return pollDeviceCode(emOf(ctx), req.deviceCode);
    },
    async approveDeviceCode(req, ctx) {
      const d = await approveDeviceCode(emOf(ctx), requirePrincipal(ctx), req);
      return {
        decision: { userCode: d.userCode, status: d.status, scope: d.scope ?? undefined, name: d.name ?? undefined },
      };
    },
    async denyDeviceCode(req, ctx) {
      const d = await denyDeviceCode(emOf(ctx), requirePrincipal(ctx), req);
      return { decision: { userCode: d.userCode, status: d.status } };
    },
  });

  loginRoutes(router, deps);
}
