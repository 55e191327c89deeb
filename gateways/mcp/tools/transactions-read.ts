import { z } from "zod";
import {
  SummarizeTransactionsResponseSchema,
  TransactionSchema,
  type Transaction,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { toRest } from "../../shared/rest-json.js";
import {
  filterOf,
  transactionFilterShape,
  transactionListShape,
  transactionSummaryShape,
} from "../../shared/transaction-filter.js";
import { defineTool, type ToolDef } from "../tool.js";

type Rest = ReturnType<typeof toRest>;

/**
 * Every field an agent can ask for, in the order "all" returns them. `id` is
 * the short id (what every other tool takes); `uuid` is the long form.
 * References are shown by name, with the short id beside them.
 */
const FIELDS = {
  id: { schema: z.string().describe("short id"), pick: (r: Rest) => r.short_id },
  uuid: { schema: z.string(), pick: (r: Rest) => r.id },
  date: { schema: z.string().describe("YYYY-MM-DD"), pick: (r: Rest) => r.date },
  amount: { schema: z.number().describe("positive = money out, negative = money in"), pick: (r: Rest) => r.amount },
  iso_currency_code: { schema: z.string(), pick: (r: Rest) => r.iso_currency_code },
  name: { schema: z.string().describe("merchant name, else the bank's text"), pick: (r: Rest) => r.name },
  pending: { schema: z.boolean(), pick: (r: Rest) => r.pending },
  category: { schema: z.string().describe("category slug"), pick: (r: Rest) => r.category_slug },
  category_name: { schema: z.string(), pick: (r: Rest) => r.category_display_name },
  category_parent: { schema: z.string().nullable(), pick: (r: Rest) => r.category_parent_slug },
  category_source: {
    schema: z.string().nullable().describe("user, agent, rule or system"),
    pick: (r: Rest) => r.category_source,
  },
  tags: { schema: z.array(z.string()), pick: (r: Rest) => r.tags },
  account: { schema: z.string().describe("account name"), pick: (r: Rest) => r.account_name },
  account_id: { schema: z.string().describe("account short id"), pick: (r: Rest) => r.account_id },
  user: { schema: z.string().describe("owner's name"), pick: (r: Rest) => r.user_name },
  user_id: { schema: z.string().describe("owner's short id"), pick: (r: Rest) => r.user_id },
  counterparty: { schema: z.string().nullable(), pick: (r: Rest) => r.counterparty_name },
  counterparty_id: { schema: z.string().nullable(), pick: (r: Rest) => r.counterparty_id },
  series: { schema: z.string().nullable().describe("recurring series name"), pick: (r: Rest) => r.series_name },
  series_id: { schema: z.string().nullable().describe("recurring series short id"), pick: (r: Rest) => r.series_id },
  metadata: { schema: z.record(z.string(), z.any()), pick: (r: Rest) => r.metadata ?? {} },
  authorized_date: { schema: z.string().nullable(), pick: (r: Rest) => r.authorized_date },
  provider: { schema: z.string(), pick: (r: Rest) => r.provider },
  provider_transaction_id: { schema: z.string(), pick: (r: Rest) => r.provider_transaction_id },
  provider_name: { schema: z.string(), pick: (r: Rest) => r.provider_name },
  provider_merchant_name: { schema: z.string().nullable(), pick: (r: Rest) => r.provider_merchant_name },
  provider_category_primary: { schema: z.string().nullable(), pick: (r: Rest) => r.provider_category_primary },
  provider_category_detailed: { schema: z.string().nullable(), pick: (r: Rest) => r.provider_category_detailed },
  created_at: { schema: z.string(), pick: (r: Rest) => r.created_at },
  updated_at: { schema: z.string(), pick: (r: Rest) => r.updated_at },
} as const;

type FieldName = keyof typeof FIELDS;
const ALL_FIELDS = Object.keys(FIELDS) as FieldName[];
export const DEFAULT_FIELDS: FieldName[] = [
  "id",
  "date",
  "amount",
  "iso_currency_code",
  "name",
  "category",
  "account",
  "tags",
  "pending",
];

const transactionShape = Object.fromEntries(ALL_FIELDS.map((f) => [f, FIELDS[f].schema])) as {
  [K in FieldName]: (typeof FIELDS)[K]["schema"];
};

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

function project(t: Transaction, fields: FieldName[]): Record<string, unknown> {
  const rest = toRest(TransactionSchema, t);
  return Object.fromEntries(fields.map((f) => [f, FIELDS[f].pick(rest)]));
}

/*
 * A transaction is shown as REST renders it (toRest), projected to the fields
 * asked for, so its type is known only at run time: these two schemas are
 * declared loosely for the handlers, and the server checks every result
 * against them (outputSchema) before sending it.
 */
const transactionRow: z.ZodType<Record<string, unknown>> = z.object(transactionShape).partial();
const fullTransaction: z.ZodRawShape = transactionShape;

export const queryTransactions = defineTool({
  name: "query_transactions",
  title: "Query transactions",
  description:
    "Lists transactions, newest first, with filters (dates, account, household member, category, amount range, " +
    "pending, name search, tags, recurring series). Page through results by passing next_cursor back as cursor " +
    "with the same filters until has_more is false. sort_by amount or name returns one page (top `limit`, up to " +
    "500) and takes no cursor. Use count_only to learn how many match before paging, and fields to choose what " +
    "each transaction shows. Amounts: positive = money out.",
  readOnly: true,
  inputSchema: {
    ...transactionFilterShape.mcp,
    ...transactionListShape,
    fields: z
      .string()
      .refine((v) => v.trim() === "all" || splitFields(v).every((f) => f in FIELDS), {
        message: `must be "all" or a comma-separated list of: ${ALL_FIELDS.join(", ")}`,
      })
      .optional()
      .describe(
        `comma-separated fields, or "all". Default: ${DEFAULT_FIELDS.join(",")}. Available: ${ALL_FIELDS.join(", ")}`,
      ),
    count_only: z.boolean().optional().describe("return only {count} of the matching transactions"),
  },
  outputSchema: {
    transactions: z.array(transactionRow).optional(),
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
  description: "One transaction with every field, by its short id or UUID.",
  readOnly: true,
  inputSchema: { id: z.string().min(1).describe("transaction short id (8 characters) or UUID") },
  outputSchema: fullTransaction,
  async handler(core, opts, args) {
    return project((await core.transactions.getTransaction({ id: args.id }, opts)).transaction!, ALL_FIELDS);
  },
});

const totals = z.object({
  iso_currency_code: z.string(),
  money_out: z.number().describe("sum of positive amounts"),
  money_in: z.number().describe("sum of negative amounts, as a positive number"),
  net: z.number().describe("money_out - money_in"),
  count: z.number().int(),
});

/** The summary as REST renders it (toRest): declared loosely for the handler, checked by the server. */
const summaryShape: z.ZodRawShape = {
  group_by: z.string(),
  groups: z.array(z.object({ key: z.string(), label: z.string(), totals: z.array(totals) })),
  totals: z.array(totals).describe("per currency, over all groups"),
};

export const transactionSummary = defineTool({
  name: "transaction_summary",
  title: "Summarize transactions",
  description:
    "Money out, money in, net and count of the transactions matching the filters, grouped by category (the " +
    "assigned category slug; default), month, ISO week or day, and overall; always per currency (currencies are " +
    "never added together).",
  readOnly: true,
  inputSchema: {
    ...transactionFilterShape.mcp,
    ...transactionSummaryShape,
  },
  outputSchema: summaryShape,
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
