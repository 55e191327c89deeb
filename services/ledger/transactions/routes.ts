import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import {
  TransactionService,
  type AnnotationSchema,
  type CommentSchema,
  type CurrencyTotalsSchema,
  type Transaction,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { emOf, requirePrincipal } from "../../context.js";
import type { CoreDeps } from "../../deps.js";
import type { Annotation } from "../../db/entities/index.js";
import { orUndef, ts, tsFromIso } from "../../shared/proto.js";
import { actorOf } from "../actor.js";
import { batchCategorizeTransactions, resetTransactionCategory, setTransactionCategory } from "./categorize.js";
import { addComment, deleteComment, listComments, updateComment, type CommentView } from "./comments.js";
import { countTransactions } from "./count.js";
import { deleteTransaction, listAnnotations, restoreTransaction } from "./lifecycle.js";
import { listTransactions } from "./list.js";
import { deleteTransactionMetadata, setTransactionMetadata } from "./metadata.js";
import { summarizeTransactions, type CurrencyTotals } from "./summary.js";
import { updateTransactionTags } from "./tags.js";
import { loadTransaction, resolveTransactionId, type TransactionView } from "./view.js";

/**
 * A presented row as a coffer.v1.Transaction. Every field is given, so the
 * message is written as a literal: protobuf-es's create() (defaults and
 * checks per field) costs more than the rest of building a page of 100.
 */
export function transactionToProto(r: TransactionView): Transaction {
  return {
    $typeName: "coffer.v1.Transaction",
    id: r.id,
    shortId: r.shortId,
    accountId: r.accountId,
    accountName: r.accountName,
    userId: r.userId,
    userName: r.userName,
    amount: r.amount,
    isoCurrencyCode: r.isoCurrencyCode,
    date: r.date,
    authorizedDate: orUndef(r.authorizedDate),
    name: r.name,
    provider: r.provider,
    providerTransactionId: r.providerTransactionId,
    providerName: r.providerName,
    providerMerchantName: orUndef(r.providerMerchantName),
    providerCategoryPrimary: orUndef(r.providerCategoryPrimary),
    providerCategoryDetailed: orUndef(r.providerCategoryDetailed),
    pending: r.pending,
    categorySlug: r.categorySlug,
    categoryDisplayName: r.categoryDisplayName,
    categoryParentSlug: orUndef(r.categoryParentSlug),
    categorySource: orUndef(r.categorySource),
    tags: r.tags,
    metadata: r.metadata as JsonObject,
    counterpartyId: orUndef(r.counterpartyId),
    counterpartyName: orUndef(r.counterpartyName),
    seriesId: orUndef(r.seriesId),
    seriesName: orUndef(r.seriesName),
    deletedAt: r.deletedAt ? tsFromIso(r.deletedAt) : undefined,
    createdAt: tsFromIso(r.createdAt),
    updatedAt: tsFromIso(r.updatedAt),
  };
}

const commentToProto = (c: CommentView): MessageInitShape<typeof CommentSchema> => ({
  id: c.id,
  shortId: c.shortId,
  transactionId: c.transactionShortId,
  body: c.body,
  authorType: c.authorType,
  authorName: c.authorName,
  createdAt: ts(c.createdAt),
  updatedAt: ts(c.updatedAt),
});

const annotationToProto = (a: Annotation, transactionShortId: string): MessageInitShape<typeof AnnotationSchema> => ({
  id: a.id,
  shortId: a.shortId,
  transactionId: transactionShortId,
  entityType: a.entityType,
  action: a.action,
  actorType: a.actorType,
  actorId: orUndef(a.actorId),
  actorName: a.actorName,
  details: a.details as JsonObject,
  createdAt: ts(a.createdAt),
});

const totalsToProto = (t: CurrencyTotals): MessageInitShape<typeof CurrencyTotalsSchema> => ({ ...t });

const actor = (ctx: HandlerContext) => actorOf(requirePrincipal(ctx));

/**
 * TransactionService. Reads: list (cursor-paginated), count, summary, get.
 * Writes: category, tags, metadata, comments, delete/restore; each domain
 * function validates its input, then makes the change and its annotation in
 * one database transaction.
 */
export function transactionRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(TransactionService, {
    async listTransactions(req, ctx) {
      const page = await listTransactions(emOf(ctx), req, deps.cursorKeys);
      return {
        transactions: page.transactions.map(transactionToProto),
        nextCursor: page.nextCursor,
        hasMore: page.hasMore,
      };
    },
    async countTransactions(req, ctx) {
      return { count: await countTransactions(emOf(ctx), req.filter) };
    },
    async summarizeTransactions(req, ctx) {
      const s = await summarizeTransactions(emOf(ctx), req.filter, req.groupBy);
      return {
        groupBy: s.groupBy,
        groups: s.groups.map((g) => ({ key: g.key, label: g.label, totals: g.totals.map(totalsToProto) })),
        totals: s.totals.map(totalsToProto),
      };
    },
    async getTransaction(req, ctx) {
      const em = emOf(ctx);
      return { transaction: transactionToProto(await loadTransaction(em, await resolveTransactionId(em, req.id))) };
    },

    async setTransactionCategory(req, ctx) {
      return {
        transaction: transactionToProto(await setTransactionCategory(emOf(ctx), actor(ctx), req.id, req.categorySlug)),
      };
    },
    async resetTransactionCategory(req, ctx) {
      return { transaction: transactionToProto(await resetTransactionCategory(emOf(ctx), actor(ctx), req.id)) };
    },
    async batchCategorizeTransactions(req, ctx) {
      const updated = await batchCategorizeTransactions(emOf(ctx), actor(ctx), req.transactionIds, req.categorySlug);
      return { updated: BigInt(updated) };
    },
    async addTransactionTag(req, ctx) {
      const t = await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { add: [req.slug] });
      return { transaction: transactionToProto(t) };
    },
    async removeTransactionTag(req, ctx) {
      const t = await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { remove: [req.slug] });
      return { transaction: transactionToProto(t) };
    },
    async updateTransactionTags(req, ctx) {
      const t = await updateTransactionTags(emOf(ctx), actor(ctx), req.id, { add: req.add, remove: req.remove });
      return { transaction: transactionToProto(t) };
    },
    async setTransactionMetadata(req, ctx) {
      const t = await setTransactionMetadata(emOf(ctx), actor(ctx), req.id, req.metadata, req.replace);
      return { transaction: transactionToProto(t) };
    },
    async deleteTransactionMetadata(req, ctx) {
      return {
        transaction: transactionToProto(await deleteTransactionMetadata(emOf(ctx), actor(ctx), req.id, req.keys)),
      };
    },
    async listComments(req, ctx) {
      return { comments: (await listComments(emOf(ctx), req.transactionId)).map(commentToProto) };
    },
    async addComment(req, ctx) {
      return { comment: commentToProto(await addComment(emOf(ctx), actor(ctx), req.transactionId, req.body)) };
    },
    async updateComment(req, ctx) {
      const c = await updateComment(emOf(ctx), actor(ctx), req.transactionId, req.commentId, req.body);
      return { comment: commentToProto(c) };
    },
    async deleteComment(req, ctx) {
      await deleteComment(emOf(ctx), actor(ctx), req.transactionId, req.commentId);
      return {};
    },
    async listAnnotations(req, ctx) {
      const { transactionShortId, annotations } = await listAnnotations(emOf(ctx), req.transactionId);
      return { annotations: annotations.map((a) => annotationToProto(a, transactionShortId)) };
    },
    async deleteTransaction(req, ctx) {
      await deleteTransaction(emOf(ctx), actor(ctx), req.id);
      return {};
    },
    async restoreTransaction(req, ctx) {
      return { transaction: transactionToProto(await restoreTransaction(emOf(ctx), actor(ctx), req.id)) };
    },
  });
}
