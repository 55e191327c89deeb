import type { TransactionContext } from "./context.js";
import { FALSE, TRUE, UNKNOWN, type CompiledConditions, type ConditionNode, type Truth } from "./tree.js";

/**
 * The one evaluator, used by the sync pipeline, retroactive apply,
 * preview_rule and find_matching_rules alike.
 *
 * It is three-valued (Kleene): a leaf on a field the context does not hold
 * is UNKNOWN; `and` is FALSE if any part is FALSE, `or` TRUE if any part is
 * TRUE, `not` keeps UNKNOWN. A condition matches only when it is TRUE. With
 * a stored transaction every field is known and this is ordinary boolean
 * logic; with find_matching_rules's merchant-only context, a rule matches
 * only if the name fields alone make it true (so rules that also need an
 * amount or a category do not).
 */
export function evaluateNode(node: ConditionNode, ctx: TransactionContext): Truth {
  switch (node.kind) {
    case "leaf":
      return node.test(ctx);
    case "and": {
      let result: Truth = TRUE;
      for (const n of node.nodes) {
        const v = evaluateNode(n, ctx);
        if (v === FALSE) return FALSE;
        if (v === UNKNOWN) result = UNKNOWN;
      }
      return result;
    }
    case "or": {
      let result: Truth = FALSE;
      for (const n of node.nodes) {
        const v = evaluateNode(n, ctx);
        if (v === TRUE) return TRUE;
        if (v === UNKNOWN) result = UNKNOWN;
      }
      return result;
    }
    case "not": {
      const v = evaluateNode(node.node, ctx);
      return v === UNKNOWN ? UNKNOWN : v === TRUE ? FALSE : TRUE;
    }
  }
}

/** The truth of a whole tree; `{}` is TRUE for every context. */
export function truthOf(conditions: CompiledConditions, ctx: TransactionContext): Truth {
  return conditions.root === null ? TRUE : evaluateNode(conditions.root, ctx);
}

/** Whether the conditions match this transaction. */
export const conditionsMatch = (conditions: CompiledConditions, ctx: TransactionContext): boolean =>
  truthOf(conditions, ctx) === TRUE;
