import { z } from "zod";
import { ApiKeySchema } from "../../../gen/coffer/v1/auth_pb.js";
import { UserSchema } from "../../../gen/coffer/v1/users_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { defineTool } from "../tool.js";

const user = z.object({
  id: z.string().describe("short id"),
  name: z.string(),
  email: z.string().nullable(),
});

export const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description: "The API key this session uses: its name, scope (read_only or full_access) and owner.",
  readOnly: true,
  inputSchema: {},
  outputSchema: {
    id: z.string(),
    name: z.string(),
    scope: z.enum(["read_only", "full_access"]),
    actor_type: z.string(),
    user_id: z.string().nullable(),
    created_at: z.string(),
  },
  async handler(core, opts) {
    const key = toRest(ApiKeySchema, (await core.apiKeys.getCurrentKey({}, opts)).apiKey!);
    return {
      id: key.short_id,
      name: key.name,
      scope: key.scope,
      actor_type: key.actor_type,
      user_id: key.user_id,
      created_at: key.created_at,
    };
  },
});

export const listUsers = defineTool({
  name: "list_users",
  title: "List household members",
  description: "Every member of the household, with their short ids (used as user_id elsewhere).",
  readOnly: true,
  inputSchema: {},
  outputSchema: { users: z.array(user) },
  async handler(core, opts) {
    const r = await core.users.listUsers({}, opts);
    return {
      users: r.users.map((u) => {
        const j = toRest(UserSchema, u);
        return { id: u.shortId, name: u.name, email: j.email as string | null };
      }),
    };
  },
});
