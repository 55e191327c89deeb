import { z } from "zod";
import {
  SummarizeTransactionsResponseSchema,
  TransactionSchema,
  type Transaction,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import {
  filterOf,
  transactionFilterShape,
  transactionListShape,
  transactionSummaryShape,
} from "../../shared/transaction-filter.js";
import { defineTool, type ToolDef } from "../tool.js";

/** A transaction as REST shows it (GET /api/v1/transactions/{id}): what every transaction tool returns. */
const transaction = restShapeOf(TransactionSchema);
/** A field's REST name (the shape is built from the message descriptor, so its keys are known at run time). */
type FieldName = string;
const ALL_FIELDS: FieldName[] = Object.keys(transaction.shape);
export const DEFAULT_FIELDS: FieldName[] = [
  "id",
  "short_id",
  "date",
  "amount",
  "iso_currency_code",
  "name",
  "category_slug",
  "account_name",
  "tags",
  "pending",
];

/** What the transaction tools' descriptions say about the transaction objects they return. */
export const TRANSACTION_TEXT =
  "A transaction is its REST object (GET /api/v1/transactions/{id}): id (UUID) and short_id (either is accepted " +
  "as a transaction id), date (YYYY-MM-DD), amount (positive = money out, negative = money in) with " +
  "iso_currency_code, name (merchant name, else the bank's text), pending, category_slug, category_display_name, " +
  "category_parent_slug, category_source (user, agent, rule or system), tags (slugs), metadata, account_id, " +
  "account_name, user_id, user_name, counterparty_id, counterparty_name, series_id, series_name (its recurring " +
  "series), the provider's raw fields (provider_*), created_at, updated_at. Fields naming another record " +
  "(account_id, user_id, counterparty_id, series_id) carry its short id.";

const splitFields = (raw: string) =>
  raw
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "");

function fieldsOf(raw: string | undefined): FieldName[] {
  if (raw === undefined || raw.trim() === "") return DEFAULT_FIELDS;
  if (raw.trim() === "all") return ALL_FIELDS;
  return [...new Set(splitFields(raw))] as FieldName[];
}

/** The REST transaction, projected to the fields asked for (same names, same values). */
function project(t: Transaction, fields: FieldName[]): Record<string, unknown> {
  const rest = toRest(TransactionSchema, t);
  return fields === ALL_FIELDS ? rest : Object.fromEntries(fields.map((f) => [f, rest[f]]));
}

export const queryTransactions = defineTool({
  name: "query_transactions",
  title: "Query transactions",
  description:
    "Lists transactions, newest first, with filters (dates, account, household member, category, amount range, " +
    "pending, name search, tags, recurring series). Page through results by passing next_cursor back as cursor " +
    "with the same filters until has_more is false. sort_by amount or name returns one page (top `limit`, up to " +
    "500) and takes no cursor. Use count_only to learn how many match before paging, and fields to choose what " +
    "each transaction shows: its REST fields by the same names (default " +
    DEFAULT_FIELDS.join(",") +
    '; "all" gives the whole REST object). ' +
    TRANSACTION_TEXT,
  readOnly: true,
  inputSchema: {
    ...transactionFilterShape.mcp,
    ...transactionListShape,
    fields: z
      .string()
      .refine((v) => v.trim() === "all" || splitFields(v).every((f) => f in transaction.shape), {
        message: `must be "all" or a comma-separated list of: ${ALL_FIELDS.join(", ")}`,
      })
      .optional()
      .describe(
        `comma-separated fields, or "all". Default: ${DEFAULT_FIELDS.join(",")}. Available: ${ALL_FIELDS.join(", ")}`,
      ),
    count_only: z.boolean().optional().describe("return only {count} of the matching transactions"),
  },
  outputSchema: {
    transactions: z.array(transaction.partial()).optional(),
    next_cursor: z.string().optional().describe("pass as cursor for the next page; empty when there are no more"),
    has_more: z.boolean().optional(),
    count: z.number().int().optional().describe("with count_only: how many transactions match"),
  },
  async handler(core, opts, args) {
    const filter = filterOf(args);
    if (args.count_only) {
      const r = await core.transactions.countTransactions({ filter }, opts);
      return { count: Number(r.count) };
    }
    const fields = fieldsOf(args.fields);
    const r = await core.transactions.listTransactions(
      {
        filter,
        limit: args.limit ?? 0,
        cursor: args.cursor ?? "",
        sortBy: args.sort_by ?? "",
        sortOrder: args.sort_order ?? "",
      },
      opts,
    );
    return {
      transactions: r.transactions.map((t) => project(t, fields)),
      next_cursor: r.nextCursor,
      has_more: r.hasMore,
    };
  },
});

export const getTransaction = defineTool({
  name: "get_transaction",
  title: "Get a transaction",
  description:
    "One transaction with every field, by its UUID or short id: exactly what GET /api/v1/transactions/{id} " +
    "answers. " +
    TRANSACTION_TEXT,
  readOnly: true,
  inputSchema: { id: z.string().min(1).describe("transaction id: the UUID or the short id (8 characters)") },
  outputSchema: transaction.shape,
  async handler(core, opts, args) {
    return toRest(TransactionSchema, (await core.transactions.getTransaction({ id: args.id }, opts)).transaction!);
  },
});

export const transactionSummary = defineTool({
  name: "transaction_summary",
  title: "Summarize transactions",
  description:
    "Money out, money in, net and count of the transactions matching the filters, grouped by category (the " +
    "assigned category slug; default), month, ISO week or day, and overall; always per currency (currencies are " +
    "never added together). The answer is GET /api/v1/transactions/summary's.",
  readOnly: true,
  inputSchema: {
    ...transactionFilterShape.mcp,
    ...transactionSummaryShape,
  },
  outputSchema: restShapeOf(SummarizeTransactionsResponseSchema).shape,
  async handler(core, opts, args) {
    const r = await core.transactions.summarizeTransactions(
      { filter: filterOf(args), groupBy: args.group_by ?? "" },
      opts,
    );
    return toRest(SummarizeTransactionsResponseSchema, r);
  },
});

/** query_transactions, get_transaction, transaction_summary. */
export const transactionReadTools: ToolDef[] = [queryTransactions, getTransaction, transactionSummary];
