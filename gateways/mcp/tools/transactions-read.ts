import type { ToolDef } from "../tool.js";

/** query_transactions, get_transaction, transaction_summary. */
export const transactionReadTools: ToolDef[] = [];
