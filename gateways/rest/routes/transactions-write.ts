import type { JsonObject } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  AnnotationSchema,
  CommentSchema,
  TransactionSchema,
  type Transaction,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

const transaction = (t: Transaction | undefined) => toRest(TransactionSchema, t!);

/**
 * PUT and PATCH metadata take the object itself as the body; its keys are the caller's, so any are allowed.
 * Its values are not described: the body was parsed from JSON text, so each of them is JSON (a JsonObject).
 */
const metadataBody = z.record(z.string(), z.unknown());
/** A comment's text; the core judges its length (in characters) after trimming. */
const commentBody = { body: z.string() };

/** Category, tags, metadata, comments, annotations, batch-categorize, delete/restore of transactions. */
export const transactionWriteRoutes: RestRoute[] = [
  defineRoute({
    method: "PATCH",
    url: "/api/v1/transactions/:id/category",
    response: restShapeOf(TransactionSchema),
    body: { category_slug: z.string().min(1) },
    async handler({ core, opts, params, body }) {
      return transaction(
        (await core.transactions.setTransactionCategory({ id: params.id, categorySlug: body.category_slug }, opts))
          .transaction,
      );
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id/category",
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return transaction((await core.transactions.resetTransactionCategory({ id: params.id }, opts)).transaction);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/transactions/batch-categorize",
    response: z.object({ updated: z.number().int() }),
    body: { transaction_ids: z.array(z.string().min(1)).min(1).max(500), category_slug: z.string().min(1) },
    async handler({ core, opts, body }) {
      const r = await core.transactions.batchCategorizeTransactions(
        { transactionIds: body.transaction_ids, categorySlug: body.category_slug },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/transactions/:id/tags",
    response: restShapeOf(TransactionSchema),
    body: { slug: z.string().min(1) },
    async handler({ core, opts, params, body }) {
      return transaction(
        (await core.transactions.addTransactionTag({ id: params.id, slug: body.slug }, opts)).transaction,
      );
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id/tags/:slug",
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.removeTransactionTag({ id: params.id, slug: params.slug }, opts)).transaction,
      );
    },
  }),
  defineRoute({
    method: "PUT",
    url: "/api/v1/transactions/:id/metadata",
    response: restShapeOf(TransactionSchema),
    body: metadataBody,
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.setTransactionMetadata(
        { id: params.id, metadata: body as JsonObject, replace: true },
        opts,
      );
      return transaction(r.transaction);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/transactions/:id/metadata",
    response: restShapeOf(TransactionSchema),
    body: metadataBody,
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.setTransactionMetadata(
        { id: params.id, metadata: body as JsonObject, replace: false },
        opts,
      );
      return transaction(r.transaction);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id/metadata",
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.deleteTransactionMetadata({ id: params.id, keys: [] }, opts)).transaction,
      );
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id/metadata/:key",
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.deleteTransactionMetadata({ id: params.id, keys: [params.key] }, opts)).transaction,
      );
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/:id/comments",
    response: z.object({ comments: z.array(restShapeOf(CommentSchema)) }),
    async handler({ core, opts, params }) {
      const r = await core.transactions.listComments({ transactionId: params.id }, opts);
      return { comments: r.comments.map((c) => toRest(CommentSchema, c)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/transactions/:id/comments",
    response: restShapeOf(CommentSchema),
    status: 201,
    body: commentBody,
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.addComment({ transactionId: params.id, body: body.body }, opts);
      return toRest(CommentSchema, r.comment!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/transactions/:id/comments/:cid",
    response: restShapeOf(CommentSchema),
    body: commentBody,
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.updateComment(
        { transactionId: params.id, commentId: params.cid, body: body.body },
        opts,
      );
      return toRest(CommentSchema, r.comment!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id/comments/:cid",
    status: 204,
    async handler({ core, opts, params }) {
      await core.transactions.deleteComment({ transactionId: params.id, commentId: params.cid }, opts);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/:id/annotations",
    response: z.object({ annotations: z.array(restShapeOf(AnnotationSchema)) }),
    async handler({ core, opts, params }) {
      const r = await core.transactions.listAnnotations({ transactionId: params.id }, opts);
      return { annotations: r.annotations.map((a) => toRest(AnnotationSchema, a)) };
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/transactions/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.transactions.deleteTransaction({ id: params.id }, opts);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/transactions/:id/restore",
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return transaction((await core.transactions.restoreTransaction({ id: params.id }, opts)).transaction);
    },
  }),
];
