import type { ToolDef } from "../tool.js";
import { listUsers, whoami } from "./identity.js";
import { referenceTools } from "./reference.js";
import { reportTools } from "./reports.js";
import { seriesTools } from "./series.js";
import { syncTools } from "./sync.js";
import { ruleReadTools } from "./rules-read.js";
import { ruleWriteTools } from "./rules-write.js";
import { transactionReadTools } from "./transactions-read.js";
import { transactionWriteTools } from "./transactions-write.js";

export const allTools: ToolDef[] = [
  whoami,
  listUsers,
  ...referenceTools,
  ...transactionReadTools,
  ...transactionWriteTools,
  ...reportTools,
  ...seriesTools,
  ...syncTools,
  ...ruleReadTools,
  ...ruleWriteTools,
];
