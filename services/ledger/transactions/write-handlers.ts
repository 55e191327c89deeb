import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import type { CoreDeps } from "../../deps.js";
import { actorOf } from "../actor.js";
import { batchCategorizeTransactions, resetTransactionCategory, setTransactionCategory } from "./categorize.js";
import { addComment, deleteComment, listComments, updateComment } from "./comments.js";
import { deleteTransaction, listAnnotations, restoreTransaction } from "./lifecycle.js";
import { deleteTransactionMetadata, setTransactionMetadata } from "./metadata.js";
import { updateTransactionTags } from "./tags.js";

const actor = (ctx: HandlerContext) => actorOf(requirePrincipal(ctx));

/**
 * TransactionService writes: category, tags, metadata, comments, annotations,
 * delete/restore. Each validates its input, then makes the change and its
 * annotation in one database transaction (see the domain modules).
 */
export function transactionWriteHandlers(_deps: CoreDeps): Partial<ServiceImpl<typeof TransactionService>> {
  return {
    async setTransactionCategory(req, ctx) {
      return { transaction: await setTransactionCategory(emOf(ctx), actor(ctx), req.id, req.categorySlug) };
    },
    async resetTransactionCategory(req, ctx) {
      return { transaction: await resetTransactionCategory(emOf(ctx), actor(ctx), req.id) };
    },
    async batchCategorizeTransactions(req, ctx) {
      const updated = await batchCategorizeTransactions(emOf(ctx), actor(ctx), req.transactionIds, req.categorySlug);
      return { updated: BigInt(updated) };
    },
    async addTransactionTag(req, ctx) {
      return { transaction: await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { add: [req.slug] }) };
    },
    async removeTransactionTag(req, ctx) {
      return { transaction: await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { remove: [req.slug] }) };
    },
    async updateTransactionTags(req, ctx) {
      return { transaction: await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { add: req.add, remove: req.remove }) };
    },
    async setTransactionMetadata(req, ctx) {
      return { transaction: await setTransactionMetadata(emOf(ctx), actor(ctx), req.id, req.metadata, req.replace) };
    },
    async deleteTransactionMetadata(req, ctx) {
      return { transaction: await deleteTransactionMetadata(emOf(ctx), actor(ctx), req.id, req.keys) };
    },
    async listComments(req, ctx) {
      return { comments: await listComments(emOf(ctx), req.transactionId) };
    },
    async addComment(req, ctx) {
      return { comment: await addComment(emOf(ctx), actor(ctx), req.transactionId, req.body) };
    },
    async updateComment(req, ctx) {
      return { comment: await updateComment(emOf(ctx), actor(ctx), req.transactionId, req.commentId, req.body) };
    },
    async deleteComment(req, ctx) {
      await deleteComment(emOf(ctx), actor(ctx), req.transactionId, req.commentId);
      return {};
    },
    async listAnnotations(req, ctx) {
      return { annotations: await listAnnotations(emOf(ctx), req.transactionId) };
    },
    async deleteTransaction(req, ctx) {
      await deleteTransaction(emOf(ctx), actor(ctx), req.id);
      return {};
    },
    async restoreTransaction(req, ctx) {
      return { transaction: await restoreTransaction(emOf(ctx), actor(ctx), req.id) };
    },
  };
}
