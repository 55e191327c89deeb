import { API_KEY_SCOPES } from "../../../common/enums.js";
import { z } from "zod";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { defineTool } from "../tool.js";

const user = z.object({
  id: z.string().describe("short id"),
  name: z.string(),
  email: z.string().nullable(),
});

const scope = z.enum(API_KEY_SCOPES);

export const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description: "The API key this session uses: its name, scope (read_only or full_access) and owner.",
  readOnly: true,
  inputSchema: {},
  outputSchema: {
    id: z.string(),
    name: z.string(),
    scope,
    actor_type: z.string(),
    user_id: z.string().nullable(),
    created_at: z.string(),
  },
  async handler(core, opts) {
    const key = (await core.apiKeys.getCurrentKey({}, opts)).apiKey!;
    return {
      id: key.shortId,
      name: key.name,
      // The core sends one of the two; anything else is a bug, reported as INTERNAL_ERROR.
      scope: scope.parse(key.scope),
      actor_type: key.actorType,
      user_id: key.userId ?? null,
      created_at: timestampDate(key.createdAt!).toISOString(),
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
    return { users: r.users.map((u) => ({ id: u.shortId, name: u.name, email: u.email ?? null })) };
  },
});
