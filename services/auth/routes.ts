import type { ConnectRouter } from "@connectrpc/connect";
import { ApiKeyService, DeviceCodeService } from "../../gen/coffer/v1/auth_pb.js";
import { emOf, requirePrincipal } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { CofferError } from "../errors/coffer-error.js";
import { apiKeyToProto, createApiKey, currentKey, listApiKeys, revokeApiKey, userShortIds } from "./api-keys.js";
import { approveDeviceCode, createDeviceCode, denyDeviceCode, pollDeviceCode } from "./device-codes.js";

export function authRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(ApiKeyService, {
    async listApiKeys(_req, ctx) {
      const em = emOf(ctx);
      const keys = await listApiKeys(em);
      const users = await userShortIds(em, keys);
      return { apiKeys: keys.map((k) => apiKeyToProto(k, users)) };
    },
    async createApiKey(req, ctx) {
      const em = emOf(ctx);
      const { key, plaintext } = await createApiKey(em, req);
      return { apiKey: apiKeyToProto(key, await userShortIds(em, [key])), key: plaintext };
    },
    async revokeApiKey(req, ctx) {
      const em = emOf(ctx);
      const key = await revokeApiKey(em, req.id);
      return { apiKey: apiKeyToProto(key, await userShortIds(em, [key])) };
    },
    async getCurrentKey(_req, ctx) {
      const principal = requirePrincipal(ctx);
      if (principal.kind !== "key") throw new CofferError("NOT_FOUND", "No API key in this call");
      return { apiKey: await currentKey(emOf(ctx), principal.keyId) };
    },
  });

  router.service(DeviceCodeService, {
    async createDeviceCode(req, ctx) {
      return createDeviceCode(emOf(ctx), {
        ttlSeconds: deps.config.deviceCodeTtlSeconds,
        verificationUrl: `${deps.config.publicUrl}/device`,
      }, req.name);
    },
    async pollDeviceCode(req, ctx) {
      return pollDeviceCode(emOf(ctx), req.deviceCode);
    },
    async approveDeviceCode(req, ctx) {
      const d = await approveDeviceCode(emOf(ctx), requirePrincipal(ctx), req);
      return { decision: { userCode: d.userCode, status: d.status, scope: d.scope ?? undefined, name: d.name ?? undefined } };
    },
    async denyDeviceCode(req, ctx) {
      const d = await denyDeviceCode(emOf(ctx), requirePrincipal(ctx), req);
      return { decision: { userCode: d.userCode, status: d.status } };
    },
  });
}
