import type { JsonObject } from "@bufbuild/protobuf";
import {
  AnnotationSchema,
  CommentSchema,
  TransactionSchema,
  type Transaction,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { toRest } from "../../shared/rest-json.js";
import { body, str, type RestRoute } from "../route.js";

const transaction = (t: Transaction | undefined) => toRest(TransactionSchema, t!);

/** PUT and PATCH metadata take the object itself as the body; its keys are the caller's, so any are allowed. */
const metadataBody = { type: "object" };

/** Category, tags, metadata, comments, annotations, batch-categorize, delete/restore of transactions. */
export const transactionWriteRoutes: RestRoute[] = [
  {
    method: "PATCH",
    url: "/api/v1/transactions/:id/category",
    schema: { body: body({ category_slug: str({ minLength: 1 }) }, ["category_slug"]) },
    async handler({ core, opts, params, body }) {
      return transaction(
        (await core.transactions.setTransactionCategory({ id: params.id, categorySlug: body.category_slug }, opts))
          .transaction,
      );
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id/category",
    async handler({ core, opts, params }) {
      return transaction((await core.transactions.resetTransactionCategory({ id: params.id }, opts)).transaction);
    },
  },
  {
    method: "POST",
    url: "/api/v1/transactions/batch-categorize",
    schema: {
      body: body(
        {
          transaction_ids: { type: "array", items: str({ minLength: 1 }), minItems: 1, maxItems: 500 },
          category_slug: str({ minLength: 1 }),
        },
        ["transaction_ids", "category_slug"],
      ),
    },
    async handler({ core, opts, body }) {
      const r = await core.transactions.batchCategorizeTransactions(
        { transactionIds: body.transaction_ids, categorySlug: body.category_slug },
        opts,
      );
      return { updated: Number(r.updated) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/transactions/:id/tags",
    schema: { body: body({ slug: str({ minLength: 1 }) }, ["slug"]) },
    async handler({ core, opts, params, body }) {
      return transaction(
        (await core.transactions.addTransactionTag({ id: params.id, slug: body.slug }, opts)).transaction,
      );
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id/tags/:slug",
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.removeTransactionTag({ id: params.id, slug: params.slug }, opts)).transaction,
      );
    },
  },
  {
    method: "PUT",
    url: "/api/v1/transactions/:id/metadata",
    schema: { body: metadataBody },
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.setTransactionMetadata(
        { id: params.id, metadata: body as JsonObject, replace: true },
        opts,
      );
      return transaction(r.transaction);
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/transactions/:id/metadata",
    schema: { body: metadataBody },
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.setTransactionMetadata(
        { id: params.id, metadata: body as JsonObject, replace: false },
        opts,
      );
      return transaction(r.transaction);
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id/metadata",
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.deleteTransactionMetadata({ id: params.id, keys: [] }, opts)).transaction,
      );
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id/metadata/:key",
    async handler({ core, opts, params }) {
      return transaction(
        (await core.transactions.deleteTransactionMetadata({ id: params.id, keys: [params.key] }, opts)).transaction,
      );
    },
  },
  {
    method: "GET",
    url: "/api/v1/transactions/:id/comments",
    async handler({ core, opts, params }) {
      const r = await core.transactions.listComments({ transactionId: params.id }, opts);
      return { comments: r.comments.map((c) => toRest(CommentSchema, c)) };
    },
  },
  {
    method: "POST",
    url: "/api/v1/transactions/:id/comments",
    status: 201,
    schema: { body: body({ body: str() }, ["body"]) },
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.addComment({ transactionId: params.id, body: body.body }, opts);
      return toRest(CommentSchema, r.comment!);
    },
  },
  {
    method: "PATCH",
    url: "/api/v1/transactions/:id/comments/:cid",
    schema: { body: body({ body: str() }, ["body"]) },
    async handler({ core, opts, params, body }) {
      const r = await core.transactions.updateComment(
        { transactionId: params.id, commentId: params.cid, body: body.body },
        opts,
      );
      return toRest(CommentSchema, r.comment!);
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id/comments/:cid",
    status: 204,
    async handler({ core, opts, params }) {
      await core.transactions.deleteComment({ transactionId: params.id, commentId: params.cid }, opts);
    },
  },
  {
    method: "GET",
    url: "/api/v1/transactions/:id/annotations",
    async handler({ core, opts, params }) {
      const r = await core.transactions.listAnnotations({ transactionId: params.id }, opts);
      return { annotations: r.annotations.map((a) => toRest(AnnotationSchema, a)) };
    },
  },
  {
    method: "DELETE",
    url: "/api/v1/transactions/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.transactions.deleteTransaction({ id: params.id }, opts);
    },
  },
  {
    method: "POST",
    url: "/api/v1/transactions/:id/restore",
    async handler({ core, opts, params }) {
      return transaction((await core.transactions.restoreTransaction({ id: params.id }, opts)).transaction);
    },
  },
];
