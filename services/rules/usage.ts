import type { Em } from "../db/orm.js";
import { firstRuleWithActions } from "../db/tables/rules.js";
import { CofferError } from "../errors/coffer-error.js";

/**
 * Rules name categories and tags by id. Deleting (or merging away) one a
 * rule still uses is refused, so no rule is left with an action that does
 * nothing; the message names the rule to change first.
 */
export async function assertNotUsedByRules(
  em: Em,
  what: { kind: "category"; id: string; slug: string } | { kind: "tag"; id: string; slug: string },
): Promise<void> {
  const pattern = what.kind === "category" ? [{ type: "set_category", category_id: what.id }] : [{ tag_id: what.id }];
  const rule = await firstRuleWithActions(em, pattern);
  if (!rule) return;
  throw new CofferError(
    "CONFLICT",
    `${what.kind} "${what.slug}" is used by rule "${rule.name}" (${rule.short_id}); change or delete the rule first`,
  );
}
