import { z } from "zod";
import { decimalNumber } from "../../shared/rest-json.js";
import { defineTool } from "../tool.js";

const account = z.object({
  id: z.string().describe("short id (use as account_id elsewhere)"),
  name: z.string(),
  type: z.string().describe("depository, credit, loan, investment or other"),
  subtype: z.string().nullable(),
  mask: z.string().nullable(),
  iso_currency_code: z.string(),
  balance_current: z
    .number()
    .nullable()
    .describe("in the account's currency; never add balances of different currencies"),
  user_id: z.string().describe("short id of the owner"),
  user_name: z.string(),
});

export const listAccounts = defineTool({
  name: "list_accounts",
  title: "List accounts",
  description:
    "The household's bank and manual accounts with owner, currency and current balance. " +
    "Hidden accounts are left out unless include_hidden is true.",
  readOnly: true,
  inputSchema: {
    user_id: z
      .string()
      .min(1)
      .optional()
      .describe("only this household member's accounts (short id or UUID; see list_users)"),
    include_hidden: z.boolean().optional().describe("also list accounts the household has hidden"),
  },
  outputSchema: { accounts: z.array(account) },
  async handler(core, opts, args) {
    const r = await core.accounts.listAccounts(
      { userId: args.user_id, includeHidden: args.include_hidden ?? false },
      opts,
    );
    return {
      accounts: r.accounts.map((a) => ({
        id: a.shortId,
        name: a.name,
        type: a.type,
        subtype: a.subtype ?? null,
        mask: a.mask ?? null,
        iso_currency_code: a.isoCurrencyCode,
        balance_current: decimalNumber(a.balanceCurrent),
        user_id: a.userId,
        user_name: a.userName,
      })),
    };
  },
});

const childCategory = z.object({ slug: z.string(), display_name: z.string() });

export const listCategories = defineTool({
  name: "list_categories",
  title: "List categories",
  description:
    "The category taxonomy as a two-level tree: top-level groups with their children. " +
    "Use the slugs to filter or categorize transactions; filtering by a top-level slug includes its children.",
  readOnly: true,
  inputSchema: {},
  outputSchema: { categories: z.array(childCategory.extend({ children: z.array(childCategory) })) },
  async handler(core, opts) {
    const r = await core.categories.listCategories({}, opts);
    return {
      categories: r.categories.map((c) => ({
        slug: c.slug,
        display_name: c.displayName,
        children: c.children.map((k) => ({ slug: k.slug, display_name: k.displayName })),
      })),
    };
  },
});

export const listTags = defineTool({
  name: "list_tags",
  title: "List tags",
  description: "Every tag in use in the household, by slug. Use the slugs to filter or tag transactions.",
  readOnly: true,
  inputSchema: {},
  outputSchema: {
    tags: z.array(z.object({ slug: z.string(), display_name: z.string(), color: z.string().nullable() })),
  },
  async handler(core, opts) {
    const r = await core.tags.listTags({}, opts);
    return { tags: r.tags.map((t) => ({ slug: t.slug, display_name: t.displayName, color: t.color ?? null })) };
  },
});

export const referenceTools = [listAccounts, listCategories, listTags];
