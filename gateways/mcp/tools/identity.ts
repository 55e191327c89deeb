import { z } from "zod";
import { ApiKeySchema } from "../../../gen/coffer/v1/auth_pb.js";
import { UserSchema } from "../../../gen/coffer/v1/users_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineTool } from "../tool.js";

export const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The API key this session uses, exactly as GET /api/v1/keys/me shows it (id = UUID, short_id beside it): " +
    "its name, scope (read_only or full_access) and owner.",
  readOnly: true,
  inputSchema: {},
  outputSchema: restShapeOf(ApiKeySchema).shape,
  async handler(core, opts) {
    return toRest(ApiKeySchema, (await core.apiKeys.getCurrentKey({}, opts)).apiKey!);
  },
});

export const listUsers = defineTool({
  name: "list_users",
  title: "List household members",
  description:
    "Every member of the household, each as GET /api/v1/users/{id} shows it: id (UUID) and short_id (what user_id " +
    "fields elsewhere carry; either form is accepted as an argument).",
  readOnly: true,
  inputSchema: {},
  outputSchema: { users: z.array(restShapeOf(UserSchema)) },
  async handler(core, opts) {
    const r = await core.users.listUsers({}, opts);
    return { users: r.users.map((u) => toRest(UserSchema, u)) };
  },
});
