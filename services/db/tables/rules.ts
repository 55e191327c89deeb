import type { IdLookup } from "../../ids/resolve-id.js";
import type { Actor } from "../../ledger/actor.js";
import type { Trigger } from "../../rules/engine/pipeline.js";
import type { RuleSort } from "../../rules/list.js";
import type { StoredAction } from "../../rules/references.js";
import type { Em } from "../orm.js";
import type { SearchMode } from "../queries/transaction-filter.js";
import { containsPattern, wholeWordPattern } from "../search-patterns.js";
import { iso, pgArray, query } from "../sql.js";

/** A row of `rules` as every read here returns it. */
export interface RuleRow {
  id: string;
  short_id: string;
  name: string;
  conditions: Record<string, unknown>;
  actions: StoredAction[];
  trigger: Trigger;
  priority: number;
  enabled: boolean;
  hit_count: string;
  last_hit_at: string | null;
  created_by_type: "user" | "agent" | "system";
  created_by_id: string | null;
  created_by_name: string;
  created_at: string;
  updated_at: string;
  /** created_at with microseconds, fixed width: the pipeline's and the pages' tie-breaker. */
  created_key: string;
}

/** created_at as text that sorts like the timestamp, to the microsecond (what keysets compare). */
const createdKey = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

const RULE_COLUMNS = `r.id, r.short_id, r.name, r.conditions, r.actions, r.trigger, r.priority, r.enabled,
  r.hit_count::text as hit_count, ${iso("r.last_hit_at")} as last_hit_at, r.created_by_type, r.created_by_id,
  r.created_by_name, ${iso("r.created_at")} as created_at, ${iso("r.updated_at")} as updated_at,
  ${createdKey("r.created_at")} as created_key`;

export async function ruleIdByLookup(em: Em, lookup: NonNullable<IdLookup>): Promise<string | undefined> {
  const rows = await query<{ id: string }>(em, `select id from rules where ${lookup.column} = ?`, [lookup.value]);
  return rows[0]?.id;
}

/** One rule by UUID; `lock` takes it for update. */
export async function ruleRowById(em: Em, id: string, opts: { lock?: boolean } = {}): Promise<RuleRow | undefined> {
  const [row] = await query<RuleRow>(
    em,
    opts.lock
      ? `select ${RULE_COLUMNS} from rules r where r.id = ? for update`
      : `select ${RULE_COLUMNS} from rules r where r.id = ?`,
    [id],
  );
  return row;
}

/** The enabled rules in pipeline order. */
export async function enabledRuleRows(em: Em): Promise<RuleRow[]> {
  return query<RuleRow>(
    em,
    `select ${RULE_COLUMNS} from rules r where r.enabled order by r.priority, r.created_at, r.id`,
  );
}

export async function ruleExists(em: Em, id: string): Promise<boolean> {
  return (await query(em, `select 1 from rules where id = ?::uuid`, [id])).length > 0;
}

/** The rule list's filters, checked; each one given narrows the list. */
export interface RuleFilter {
  /** Rules whose actions set this category (null: set uncategorized). */
  setsCategory?: { id: string | null };
  enabled?: boolean;
  trigger?: Trigger;
  creatorType?: "user" | "agent" | "system";
  /** Names matching any of the terms, in the search mode. */
  search?: { mode: SearchMode; terms: string[] };
  /** Only never-hit rules (wins over minHitCount). */
  onlyUnused?: boolean;
  minHitCount?: number;
}

function filterSql(f: RuleFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    clauses.push(sql);
    params.push(...p);
  };
  if (f.setsCategory) {
    add("r.actions @> ?::jsonb", JSON.stringify([{ type: "set_category", category_id: f.setsCategory.id }]));
  }
  if (f.enabled !== undefined) add("r.enabled = ?", f.enabled);
  if (f.trigger !== undefined) add("r.trigger = ?", f.trigger);
  if (f.creatorType !== undefined) add("r.created_by_type = ?", f.creatorType);
  if (f.search && f.search.terms.length > 0) {
    const mode = f.search.mode;
    const parts = f.search.terms.map((term) => {
      switch (mode) {
        case "contains":
          return { sql: "lower(r.name) like ?", params: [containsPattern(term)] };
        case "words": {
          const words = term.split(" ");
          return { sql: `(${words.map(() => "r.name ~* ?").join(" and ")})`, params: words.map(wholeWordPattern) };
        }
        case "fuzzy":
          // pg_trgm word similarity, as the transaction search's fuzzy mode.
          return { sql: "? <% r.name", params: [term] };
      }
    });
    add(`(${parts.map((p) => p.sql).join(" or ")})`, ...parts.flatMap((p) => p.params));
  }
  if (f.onlyUnused) add("r.hit_count = 0");
  else if (f.minHitCount !== undefined) add("r.hit_count >= ?", f.minHitCount);
  return { sql: clauses.length ? clauses.join(" and ") : "true", params };
}

export async function countRuleRows(em: Em, filter: RuleFilter): Promise<number> {
  const where = filterSql(filter);
  const [count] = await query<{ n: string }>(
    em,
    `select count(*)::text as n from rules r where ${where.sql}`,
    where.params,
  );
  return Number(count.n);
}

/** Pipeline order, which also breaks the ties of the other sorts. */
const PIPELINE = "r.priority, r.created_at, r.id";

function orderBy(by: RuleSort, order: "asc" | "desc"): string {
  switch (by) {
    case "priority":
      return `r.priority ${order}, r.created_at ${order}, r.id ${order}`;
    case "hit_count":
      return `r.hit_count ${order}, ${PIPELINE}`;
    case "last_hit_at":
      // Never-hit rules are the least recently hit.
      return `r.last_hit_at ${order} nulls ${order === "desc" ? "last" : "first"}, ${PIPELINE}`;
    case "created_at":
      return `r.created_at ${order}, r.id ${order}`;
    case "name":
      return `lower(r.name) ${order}, ${PIPELINE}`;
  }
}

/**
 * Up to `limit` matching rules in the order asked; `after` (priority order
 * only) continues after that rule's position in pipeline order.
 */
export async function ruleRowsPage(
  em: Em,
  filter: RuleFilter,
  page: {
    by: RuleSort;
    order: "asc" | "desc";
    limit: number;
    after?: { priority: number; createdKey: string; id: string };
  },
): Promise<RuleRow[]> {
  const keyset = page.after
    ? ` and (r.priority, r.created_at, r.id) ${page.order === "asc" ? ">" : "<"}
      (?::int, ?::timestamp at time zone 'UTC', ?::uuid)`
    : "";
  const where = filterSql(filter);
  const keysetParams = page.after ? [page.after.priority, page.after.createdKey, page.after.id] : [];
  return query<RuleRow>(
    em,
    `select ${RULE_COLUMNS} from rules r where (${where.sql})${keyset}
     order by ${orderBy(page.by, page.order)} limit ${Math.trunc(page.limit)}`,
    [...where.params, ...keysetParams],
  );
}

/** Inserts a rule unless its short id is taken (then false). clock_timestamp() orders rules made in one transaction. */
export async function insertRule(
  em: Em,
  r: {
    id: string;
    shortId: string;
    name: string;
    conditions: unknown;
    actions: StoredAction[];
    trigger: Trigger;
    priority: number;
    enabled: boolean;
    actor: Actor;
  },
): Promise<boolean> {
  const inserted = await query<{ id: string }>(
    em,
    `insert into rules (id, short_id, name, conditions, actions, trigger, priority, enabled,
       created_by_type, created_by_id, created_by_name, created_at, updated_at)
     values (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, clock_timestamp(), clock_timestamp())
     on conflict (short_id) do nothing returning id`,
    [
      r.id,
      r.shortId,
      r.name,
      JSON.stringify(r.conditions),
      JSON.stringify(r.actions),
      r.trigger,
      r.priority,
      r.enabled,
      r.actor.type,
      r.actor.id,
      r.actor.name,
    ],
  );
  return inserted.length > 0;
}

/** The columns a rule update may set; conditions and actions are JSON. */
export type RuleChanges = Partial<{
  name: string;
  conditions: unknown;
  actions: StoredAction[];
  trigger: Trigger;
  priority: number;
  enabled: boolean;
}>;

const RULE_CHANGE_COLUMNS = ["name", "conditions", "actions", "trigger", "priority", "enabled"] as const;

/** Sets the given columns (at least one) and updated_at. */
export async function updateRuleRow(em: Em, id: string, changes: RuleChanges): Promise<void> {
  const cols = RULE_CHANGE_COLUMNS.filter((c) => c in changes);
  const isJson = (c: string) => c === "conditions" || c === "actions";
  const values = cols.map((c) => (isJson(c) ? JSON.stringify(changes[c]) : changes[c]));
  const sets = cols.map((c) => `${c} = ?${isJson(c) ? "::jsonb" : ""}`).join(", ");
  await query(em, `update rules set ${sets}, updated_at = clock_timestamp() where id = ?`, [...values, id]);
}

/** Enables or disables a rule; answers its name when that changed it, else undefined. */
export async function setRuleRowEnabled(em: Em, id: string, enabled: boolean): Promise<string | undefined> {
  const changed = await query<{ name: string }>(
    em,
    `update rules set enabled = ?, updated_at = clock_timestamp() where id = ? and enabled <> ? returning name`,
    [enabled, id, enabled],
  );
  return changed[0]?.name;
}

export async function deleteRuleRow(
  em: Em,
  id: string,
): Promise<{ short_id: string; name: string; hit_count: string } | undefined> {
  const [gone] = await query<{ short_id: string; name: string; hit_count: string }>(
    em,
    `delete from rules where id = ? returning short_id, name, hit_count::text`,
    [id],
  );
  return gone;
}

/** The first rule in pipeline order whose actions contain this JSON pattern. */
export async function firstRuleWithActions(
  em: Em,
  pattern: unknown,
): Promise<{ short_id: string; name: string } | undefined> {
  const rows = await query<{ short_id: string; name: string }>(
    em,
    `select short_id, name from rules where actions @> ?::jsonb order by priority, created_at, id limit 1`,
    [JSON.stringify(pattern)],
  );
  return rows[0];
}

/** Adds each rule's matches to hit_count and stamps last_hit_at; rows locked in id order, so runs never deadlock. */
export async function addRuleHits(tx: Em, hits: ReadonlyMap<string, number>): Promise<void> {
  if (hits.size === 0) return;
  const ids = [...hits.keys()].sort();
  await query(tx, `select id from rules where id = any(?::uuid[]) order by id for update`, [pgArray(ids)]);
  await query(
    tx,
    `update rules r set hit_count = r.hit_count + v.n, last_hit_at = now()
     from jsonb_to_recordset(?::jsonb) as v(id uuid, n bigint) where r.id = v.id`,
    [JSON.stringify(ids.map((id) => ({ id, n: hits.get(id) })))],
  );
}
