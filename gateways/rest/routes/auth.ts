import { ApiKeySchema } from "../../../gen/coffer/v1/auth_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, str, type RestRoute } from "../route.js";

const scope = str({ enum: ["read_only", "full_access"] });

export const authRoutes: RestRoute[] = [
  {
    method: "POST",
    url: "/api/v1/auth/device-code",
    status: 201,
    bodyOptional: true,
    schema: { body: body({ name: str({ maxLength: 200 }) }) },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.createDeviceCode({ name: body?.name }, opts);
      return {
        device_code: r.deviceCode,
        user_code: r.userCode,
        verification_url: r.verificationUrl,
        expires_in: r.expiresIn,
        interval: r.interval,
      };
    },
  },
  {
    method: "POST",
    url: "/api/v1/auth/device-code/poll",
    schema: { body: body({ device_code: str({ minLength: 1 }) }, ["device_code"]) },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.pollDeviceCode({ deviceCode: body.device_code }, opts);
      return r.token === undefined ? { status: r.status } : { status: r.status, token: r.token };
    },
  },
  {
    method: "POST",
    url: "/api/v1/auth/device-code/approve",
    schema: { body: body({ user_code: str({ minLength: 1 }), scope, name: str({ maxLength: 200 }) }, ["user_code"]) },
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
  },
  {
    method: "POST",
    url: "/api/v1/auth/device-code/deny",
    schema: { body: body({ user_code: str({ minLength: 1 }) }, ["user_code"]) },
    async handler({ core, opts, body }) {
      const r = await core.deviceCodes.denyDeviceCode({ userCode: body.user_code }, opts);
      return { user_code: r.decision!.userCode, status: r.decision!.status };
    },
  },
  {
    method: "GET",
    url: "/api/v1/keys/me",
    async handler({ core, opts }) {
      const r = await core.apiKeys.getCurrentKey({}, opts);
      return toRest(ApiKeySchema, r.apiKey!);
    },
  },
  {
    method: "GET",
    url: "/api/v1/api-keys",
    async handler({ core, opts }) {
      const r = await core.apiKeys.listApiKeys({}, opts);
      return { api_keys: r.apiKeys.map((k) => toRest(ApiKeySchema, k)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/api-keys",
    status: 201,
    schema: {
      body: body(
        {
          name: str({ minLength: 1, maxLength: 200 }),
          scope,
          user_id: str(),
          actor_type: str({ enum: ["user", "agent"] }),
        },
        ["name", "scope"],
      ),
    },
    async handler({ core, opts, body }) {
      const r = await core.apiKeys.createApiKey(
        { name: body.name, scope: body.scope, userId: body.user_id, actorType: body.actor_type },
        opts,
      );
      return { ...toRest(ApiKeySchema, r.apiKey!), key: r.key };
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/api-keys/:id",
    async handler({ core, opts, params }) {
      const r = await core.apiKeys.revokeApiKey({ id: params.id }, opts);
      return toRest(ApiKeySchema, r.apiKey!);
    },
  },
];
