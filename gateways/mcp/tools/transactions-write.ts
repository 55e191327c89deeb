import { z } from "zod";
import { CommentSchema, TransactionSchema } from "../../../gen/coffer/v1/transactions_pb.js";
import { slug } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineTool, type ToolDef } from "../tool.js";

const id = z.string().min(1).describe("transaction id: the UUID or the short id (8 characters)");

/** The transaction after the change, as REST answers the same change (and GET /api/v1/transactions/{id}). */
const transaction = restShapeOf(TransactionSchema);

export const categorizeTransaction = defineTool({
  name: "categorize_transaction",
  title: "Categorize a transaction",
  description:
    "Sets a transaction's category by slug (list_categories shows them; 'uncategorized' clears it). " +
    "The choice is recorded as yours, so rules never override it. Returns the transaction after the change as " +
    "PATCH /api/v1/transactions/{id}/category does (category_slug, and category_source: who chose it). " +
    "Needs a full_access key.",
  readOnly: false,
  inputSchema: { id, category_slug: slug.describe("category slug, e.g. food_and_drink_groceries") },
  outputSchema: { transaction },
  async handler(core, opts, args) {
    const r = await core.transactions.setTransactionCategory({ id: args.id, categorySlug: args.category_slug }, opts);
    return { transaction: toRest(TransactionSchema, r.transaction!) };
  },
});

export const tagTransaction = defineTool({
  name: "tag_transaction",
  title: "Tag a transaction",
  description:
    "Adds and/or removes tags on a transaction in one atomic change. Adding an unknown slug creates the tag; " +
    "adding one already present does nothing; removing one the transaction does not carry fails and changes nothing. " +
    "Returns the transaction after the change (its REST object; tags holds its slugs). Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    id,
    add: z.array(slug).max(50).optional().describe("tag slugs to add"),
    remove: z.array(z.string().min(1)).max(50).optional().describe("tag slugs to remove"),
  },
  outputSchema: { transaction },
  async handler(core, opts, args) {
    const r = await core.transactions.updateTransactionTags(
      { id: args.id, add: args.add ?? [], remove: args.remove ?? [] },
      opts,
    );
    return { transaction: toRest(TransactionSchema, r.transaction!) };
  },
});

export const addComment = defineTool({
  name: "add_comment",
  title: "Comment on a transaction",
  description:
    "Adds a comment (1-10,000 characters) to a transaction's shared notes, signed with this key's name. " +
    "Returns the comment as POST /api/v1/transactions/{id}/comments does: id (UUID), short_id, " +
    "transaction_id (short id), body, author_type, author_name, created_at, updated_at. Needs a full_access key.",
  readOnly: false,
  // The core judges the length (in characters, not UTF-16 units) after trimming.
  inputSchema: { id, body: z.string().min(1).describe("the comment text, 1-10,000 characters") },
  outputSchema: { comment: restShapeOf(CommentSchema) },
  async handler(core, opts, args) {
    const r = await core.transactions.addComment({ transactionId: args.id, body: args.body }, opts);
    return { comment: toRest(CommentSchema, r.comment!) };
  },
});

/** categorize_transaction, tag_transaction, add_comment. */
export const transactionWriteTools: ToolDef[] = [categorizeTransaction, tagTransaction, addComment];
