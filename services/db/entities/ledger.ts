import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { nowOf } from "../../clock.js";

// Entities for the ledger tables (migration 0002). Lists and filters that must
// be fast at a million rows use SQL directly (see services/ledger/transactions);
// these are for single-row reads and writes.

export const CategoryEntity = defineEntity({
  name: "Category",
  tableName: "categories",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    slug: p.text().unique(),
    displayName: p.text(),
    parentId: p.uuid().nullable(),
    isSystem: p.boolean(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Category = InferEntity<typeof CategoryEntity>;

export const TagEntity = defineEntity({
  name: "Tag",
  tableName: "tags",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    slug: p.text().unique(),
    displayName: p.text(),
    color: p.text().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Tag = InferEntity<typeof TagEntity>;

export const CounterpartyEntity = defineEntity({
  name: "Counterparty",
  tableName: "counterparties",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    name: p.text(),
    type: p.text(),
    notes: p.text().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Counterparty = InferEntity<typeof CounterpartyEntity>;

export const AccountEntity = defineEntity({
  name: "Account",
  tableName: "accounts",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    userId: p.uuid(),
    connectionId: p.uuid().nullable(),
    provider: p.text(),
    providerAccountId: p.text().nullable(),
    name: p.text(),
    officialName: p.text().nullable(),
    type: p.text(),
    subtype: p.text().nullable(),
    mask: p.text().nullable(),
    // Exact decimals as strings; never JS numbers.
    balanceCurrent: p.decimal().precision(14).scale(2).nullable(),
    balanceAvailable: p.decimal().precision(14).scale(2).nullable(),
    balanceLimit: p.decimal().precision(14).scale(2).nullable(),
    isoCurrencyCode: p.string().length(3),
    hidden: p.boolean(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Account = InferEntity<typeof AccountEntity>;

export type CategorySource = "user" | "agent" | "rule" | "system";

export const TransactionEntity = defineEntity({
  name: "Transaction",
  tableName: "transactions",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    accountId: p.uuid(),
    amount: p.decimal().precision(12).scale(2),
    isoCurrencyCode: p.string().length(3),
    date: p.date(),
    authorizedDate: p.date().nullable(),
    provider: p.text(),
    providerTransactionId: p.text(),
    providerName: p.text(),
    providerMerchantName: p.text().nullable(),
    providerCategoryPrimary: p.text().nullable(),
    providerCategoryDetailed: p.text().nullable(),
    pending: p.boolean(),
    categoryId: p.uuid().nullable(),
    categorySource: p.text().$type<CategorySource>().nullable(),
    tagIds: p.array().columnType("uuid[]"),
    metadata: p.json<Record<string, unknown>>(),
    counterpartyId: p.uuid().nullable(),
    seriesId: p.uuid().nullable(),
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Transaction = InferEntity<typeof TransactionEntity>;

export const CommentEntity = defineEntity({
  name: "Comment",
  tableName: "comments",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    transactionId: p.uuid(),
    body: p.text(),
    authorType: p.text(),
    authorKeyId: p.uuid().nullable(),
    authorName: p.text(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Comment = InferEntity<typeof CommentEntity>;

export const AnnotationEntity = defineEntity({
  name: "Annotation",
  tableName: "annotations",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    transactionId: p.uuid().nullable(),
    entityType: p.text(),
    entityId: p.uuid(),
    action: p.text(),
    actorType: p.text(),
    actorId: p.text().nullable(),
    actorName: p.text(),
    details: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Annotation = InferEntity<typeof AnnotationEntity>;
