import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { slug } from "../../shared/params.js";
import { defineTool, type ToolDef } from "../tool.js";

const id = z.string().min(1).describe("transaction id: the short id (8 characters) or the UUID");

export const categorizeTransaction = defineTool({
  name: "categorize_transaction",
  title: "Categorize a transaction",
  description:
    "Sets a transaction's category by slug (list_categories shows them; 'uncategorized' clears it). " +
    "The choice is recorded as yours, so rules never override it. Needs a full_access key.",
  readOnly: false,
  inputSchema: { id, category_slug: slug.describe("category slug, e.g. food_and_drink_groceries") },
  outputSchema: {
    id: z.string().describe("short id"),
    category_slug: z.string(),
    category_source: z.string().nullable().describe("who chose the category: user, agent, rule or system"),
  },
  async handler(core, opts, args) {
    const t = (await core.transactions.setTransactionCategory({ id: args.id, categorySlug: args.category_slug }, opts))
      .transaction!;
    return { id: t.shortId, category_slug: t.categorySlug, category_source: t.categorySource ?? null };
  },
});

export const tagTransaction = defineTool({
  name: "tag_transaction",
  title: "Tag a transaction",
  description:
    "Adds and/or removes tags on a transaction in one atomic change. Adding an unknown slug creates the tag; " +
    "adding one already present does nothing; removing one the transaction does not carry fails and changes nothing. " +
    "Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    id,
    add: z.array(slug).max(50).optional().describe("tag slugs to add"),
    remove: z.array(z.string().min(1)).max(50).optional().describe("tag slugs to remove"),
  },
  outputSchema: {
    id: z.string().describe("short id"),
    tags: z.array(z.string()).describe("the transaction's tag slugs after the change"),
  },
  async handler(core, opts, args) {
    const r = await core.transactions.updateTransactionTags(
      { id: args.id, add: args.add ?? [], remove: args.remove ?? [] },
      opts,
    );
    return { id: r.transaction!.shortId, tags: r.transaction!.tags };
  },
});

export const addComment = defineTool({
  name: "add_comment",
  title: "Comment on a transaction",
  description:
    "Adds a comment (1-10,000 characters) to a transaction's shared notes, signed with this key's name. " +
    "Needs a full_access key.",
  readOnly: false,
  // The core judges the length (in characters, not UTF-16 units) after trimming.
  inputSchema: { id, body: z.string().min(1).describe("the comment text, 1-10,000 characters") },
  outputSchema: {
    comment: z.object({
      id: z.string().describe("short id"),
      body: z.string(),
      author_name: z.string(),
      created_at: z.string(),
    }),
  },
  async handler(core, opts, args) {
    const c = (await core.transactions.addComment({ transactionId: args.id, body: args.body }, opts)).comment!;
    return {
      comment: {
        id: c.shortId,
        body: c.body,
        author_name: c.authorName,
        created_at: timestampDate(c.createdAt!).toISOString(),
      },
    };
  },
});

/** categorize_transaction, tag_transaction, add_comment. */
export const transactionWriteTools: ToolDef[] = [categorizeTransaction, tagTransaction, addComment];
