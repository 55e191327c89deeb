import type { ToolDef } from "../tool.js";

/** categorize_transaction, tag_transaction, add_comment. */
export const transactionWriteTools: ToolDef[] = [];
