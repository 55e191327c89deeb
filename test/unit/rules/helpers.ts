import { dayOf as epochDay } from "../../../common/days.js";
import {
  compileConditions,
  conditionsMatch,
  truthOf,
  type TransactionContext,
} from "../../../services/rules/engine/index.js";

/** A stored transaction's full context (every field known). */
export const FULL: TransactionContext = {
  providerName: "STARBUCKS STORE #4821 SEATTLE WA",
  providerMerchantName: "Starbucks",
  amountCents: 575,
  providerCategoryPrimary: "FOOD_AND_DRINK",
  providerCategoryDetailed: "FOOD_AND_DRINK_COFFEE",
  pending: false,
  provider: "plaid",
  accountId: "AcctAb12",
  userId: "UserCd34",
  // A Thursday; the 15th day of the year.
  day: epochDay("2026-01-15"),
  accountName: "Everyday Checking",
  userName: "Ann",
  category: "food_and_drink_coffee",
  tags: ["business", "vacation"],
  series: "",
  inSeries: false,
  counterparty: null,
  metadata: { receipt: "R-17", miles: 12.5, count: "3", reimbursed: true, nothing: null },
};

export const ctxOf = (over: Partial<TransactionContext> = {}): TransactionContext => ({ ...FULL, ...over });

/** Whether a condition tree matches a context (compiled fresh). */
export const judge = (conditions: unknown, ctx: TransactionContext = FULL): boolean =>
  conditionsMatch(compileConditions(conditions), ctx);

export const truth = (conditions: unknown, ctx: TransactionContext) => truthOf(compileConditions(conditions), ctx);

/** The validation message a tree is refused with, or null when it compiles. */
export function refusal(conditions: unknown): string | null {
  try {
    compileConditions(conditions);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
