import { API_KEY_SCOPES } from "../../../common/enums.js";
import { z } from "zod";
import { ApiKeySchema } from "../../../gen/coffer/v1/auth_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

const scope = z.enum(API_KEY_SCOPES);

export const authRoutes: RestRoute[] = [
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/device-code",
    public: true,
    response: z.object({
      device_code: z.string(),
      user_code: z.string(),
      verification_url: z.string(),
      expires_in: z.number().int(),
      interval: z.number().int(),
    }),
    status: 201,
    bodyOptional: true,
    body: { name: z.string().max(200).optional() },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.createDeviceCode({ name: body.name }, opts);
      return {
        device_code: r.deviceCode,
        user_code: r.userCode,
        verification_url: r.verificationUrl,
        expires_in: r.expiresIn,
        interval: r.interval,
      };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/device-code/poll",
    public: true,
    // "authorization_pending" or "approved"; the token only on the first approved poll.
    response: z.object({ status: z.string(), token: z.string().optional() }),
    body: { device_code: z.string().min(1) },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.pollDeviceCode({ deviceCode: body.device_code }, opts);
      return r.token === undefined ? { status: r.status } : { status: r.status, token: r.token };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/device-code/approve",
    response: z.object({ user_code: z.string(), status: z.string(), scope: z.string(), name: z.string() }),
    body: { user_code: z.string().min(1), scope: scope.optional(), name: z.string().max(200).optional() },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.approveDeviceCode(
        { userCode: body.user_code, scope: body.scope, name: body.name },
        opts,
      );
      return {
        user_code: r.decision!.userCode,
        status: r.decision!.status,
        scope: r.decision!.scope,
        name: r.decision!.name,
      };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/auth/device-code/deny",
    response: z.object({ user_code: z.string(), status: z.string() }),
    body: { user_code: z.string().min(1) },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.denyDeviceCode({ userCode: body.user_code }, opts);
      return { user_code: r.decision!.userCode, status: r.decision!.status };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/keys/me",
    response: restShapeOf(ApiKeySchema),
    async handler({ core, opts }) {
      const r = await core.apiKeys.getCurrentKey({}, opts);
      return toRest(ApiKeySchema, r.apiKey!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/api-keys",
    response: z.object({ api_keys: z.array(restShapeOf(ApiKeySchema)) }),
    async handler({ core, opts }) {
      const r = await core.apiKeys.listApiKeys({}, opts);
      return { api_keys: r.apiKeys.map((k) => toRest(ApiKeySchema, k)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/api-keys",
    response: restShapeOf(ApiKeySchema).extend({ key: z.string().describe("the plaintext key, shown only now") }),
    status: 201,
    body: {
      name: z.string().min(1).max(200),
      scope,
      user_id: z.string().optional(),
      actor_type: z.enum(["user", "agent"]).optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.apiKeys.createApiKey(
        { name: body.name, scope: body.scope, userId: body.user_id, actorType: body.actor_type },
        opts,
      );
      return { ...toRest(ApiKeySchema, r.apiKey!), key: r.key };
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/api-keys/:id",
    response: restShapeOf(ApiKeySchema),
    async handler({ core, opts, params }) {
      const r = await core.apiKeys.revokeApiKey({ id: params.id }, opts);
      return toRest(ApiKeySchema, r.apiKey!);
    },
  }),
];
