import type { Em } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import type { Actor } from "../../services/ledger/actor.js";
import { createRule, type RuleInput } from "../../services/rules/rules.js";

/** The actor a sync run writes with, and a person's key. */
export const syncActor: Actor = { type: "system", id: null, keyId: null, name: "sync" };
export const person: Actor = { type: "user", id: "KeyAnn01", keyId: null, name: "Ann's key" };

let n = 0;

/** Creates a rule through the domain function; returns its UUID. */
export async function newRule(em: Em, input: RuleInput & { actions: unknown }, actor: Actor = person): Promise<string> {
  return createRule(em, actor, { name: `rule ${++n}`, conditions: {}, ...input });
}

/** Removes every rule a test made and turns the built-in rule off (tests that need it turn it on). */
export async function resetRules(em: Em): Promise<void> {
  await query(em, `delete from rules where created_by_type <> 'system'`);
  await query(em, `update rules set enabled = false, hit_count = 0, last_hit_at = null`);
}

export async function ruleRow(em: Em, id: string): Promise<{ hit_count: number; last_hit_at: string | null }> {
  const [r] = await query<{ hit_count: string; last_hit_at: string | null }>(
    em,
    `select hit_count::text, last_hit_at from rules where id = ?`,
    [id],
  );
  return { hit_count: Number(r.hit_count), last_hit_at: r.last_hit_at };
}

export interface TxRow {
  category: string;
  category_source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  counterparty_id: string | null;
}

/** A transaction's mutable values, with category and tags as slugs. */
export async function txRow(em: Em, id: string): Promise<TxRow> {
  const [r] = await query<TxRow>(
    em,
    `select coalesce(c.slug, 'uncategorized') as category, t.category_source, t.metadata, t.counterparty_id,
       coalesce((select array_agg(g.slug order by g.slug) from tags g where g.id = any(t.tag_ids)), '{}') as tags
     from transactions t left join categories c on c.id = t.category_id where t.id = ?`,
    [id],
  );
  return r;
}

export async function annotationsOf(
  em: Em,
  transactionId: string,
): Promise<{ action: string; actor_name: string; details: Record<string, unknown> }[]> {
  return query(
    em,
    `select action, actor_name, details from annotations where transaction_id = ? order by created_at, id`,
    [transactionId],
  );
}
