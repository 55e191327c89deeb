import { z } from "zod";
import { AccountSchema } from "../../../gen/coffer/v1/accounts_pb.js";
import { CategorySchema } from "../../../gen/coffer/v1/categories_pb.js";
import { TagSchema } from "../../../gen/coffer/v1/tags_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineTool } from "../tool.js";

export const listAccounts = defineTool({
  name: "list_accounts",
  title: "List accounts",
  description:
    "The household's bank and manual accounts with owner, currency and current balance. " +
    "Hidden accounts are left out unless include_hidden is true. Each account is its REST object (GET " +
    "/api/v1/accounts/{id}): id is the UUID, short_id the short id that account_id fields carry; either is " +
    "accepted as account_id. Balances are in the account's currency: never add balances of different currencies.",
  readOnly: true,
  inputSchema: {
    user_id: z
      .string()
      .min(1)
      .optional()
      .describe("only this household member's accounts (short id or UUID; see list_users)"),
    include_hidden: z.boolean().optional().describe("also list accounts the household has hidden"),
  },
  outputSchema: { accounts: z.array(restShapeOf(AccountSchema)) },
  async handler(core, opts, args) {
    const r = await core.accounts.listAccounts(
      { userId: args.user_id, includeHidden: args.include_hidden ?? false },
      opts,
    );
    return { accounts: r.accounts.map((a) => toRest(AccountSchema, a)) };
  },
});

export const listCategories = defineTool({
  name: "list_categories",
  title: "List categories",
  description:
    "The category taxonomy as a two-level tree: top-level groups with their children. " +
    "Use the slugs to filter or categorize transactions; filtering by a top-level slug includes its children. " +
    "Each category is its REST object (GET /api/v1/categories).",
  readOnly: true,
  inputSchema: {},
  outputSchema: { categories: z.array(restShapeOf(CategorySchema)) },
  async handler(core, opts) {
    const r = await core.categories.listCategories({}, opts);
    return { categories: r.categories.map((c) => toRest(CategorySchema, c)) };
  },
});

export const listTags = defineTool({
  name: "list_tags",
  title: "List tags",
  description:
    "Every tag in use in the household, each as GET /api/v1/tags shows it. Use the slugs to filter or tag " +
    "transactions.",
  readOnly: true,
  inputSchema: {},
  outputSchema: { tags: z.array(restShapeOf(TagSchema)) },
  async handler(core, opts) {
    const r = await core.tags.listTags({}, opts);
    return { tags: r.tags.map((t) => toRest(TagSchema, t)) };
  },
});

export const referenceTools = [listAccounts, listCategories, listTags];
