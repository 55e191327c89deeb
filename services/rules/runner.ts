import { UUID } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { addRuleHits } from "../db/tables/rules.js";
import { insertComments as insertCommentRows } from "../db/tables/comments.js";
import { counterpartyShortIds } from "../db/tables/counterparties.js";
import { liveTransactionIds } from "../db/tables/transactions.js";
import { lockTransactionsAtVersion, writeRuledTransactions } from "../db/tables/transactions-rules.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotations, type AnnotationInput } from "../ledger/annotations.js";
import { METADATA_LIMITS } from "../ledger/transactions/metadata.js";
import { ensureTags } from "../ledger/transactions/tags.js";
import {
  firesOn,
  runPipeline,
  type CategorySource,
  type CompiledRule,
  type PipelineResult,
  type RuleRef,
  type SyncEvent,
} from "./engine/index.js";
import { loadContexts, loadNewContexts, type LoadedTransaction, type NewTransactionValues } from "./context-loader.js";
import { loadReferenceMaps, type ReferenceMaps } from "./references.js";
import { loadEnabledRules } from "./rules.js";
import { CofferError } from "../errors/coffer-error.js";
import { MAX_SERIES_IDS } from "../series/membership.js";
import { assignSeries } from "../series/rules-hooks.js";

/**
 * Runs rules on stored transactions and writes what they change: the rows,
 * one annotation per change naming the rule, comments, and the rules' hit
 * counts, all in the caller's database transaction. The sync engine calls
 * applyRulesOnSync; retroactive apply (apply.ts) calls runOn.
 */

export interface RunSummary {
  /** Transactions at least one rule matched. */
  matched: number;
  /** Transactions a rule changed. */
  changed: number;
}

/** How many transactions are read, judged and written at a time. */
const CHUNK = 1000;

const LIMITS = { maxMetadataKeys: METADATA_LIMITS.maxKeys, maxMetadataBytes: METADATA_LIMITS.maxBytes };

/** Matches per rule during one run, written to hit_count and last_hit_at at the end. */
export type HitCounts = Map<string, number>;

const ruleDetails = (by: RuleRef) => ({ rule_id: by.shortId, rule_name: by.name });

function checkIds(ids: readonly string[]): void {
  const bad = ids.find((id) => !UUID.test(id));
  if (bad !== undefined) throw new Error(`not a transaction id: ${JSON.stringify(bad)}`);
}

/**
 * The rule pipeline at sync time. Runs inside `tx`'s database transaction
 * (a savepoint when one is open), so the changes, their annotations and the
 * hit counts commit or roll back with the sync page:
 * - `created`: transactions new in this sync; rules with trigger on_create or always run on them;
 * - `changed`: transactions whose provider data changed; on_change and always rules run on them.
 * Enabled rules run in priority order (ties: older first); each sees what earlier ones changed.
 * Deleted and unknown ids are skipped. Call it last in the page's transaction: it locks the
 * rules it counts hits for until the transaction ends. (The sync engine uses PageRules, which
 * also judges the rows a page is about to insert, before they are written.)
 */
export async function applyRulesOnSync(
  tx: Em,
  changes: { created: readonly string[]; changed: readonly string[] },
  actor: Actor,
): Promise<RunSummary> {
  checkIds(changes.created);
  checkIds(changes.changed);
  if (changes.created.length === 0 && changes.changed.length === 0) return { matched: 0, changed: 0 };
  return tx.transactional(async (t) => (await PageRules.prepare(t, [], actor)).finish({ inserted: [], ...changes }));
}

/** The values a new row is inserted with: what the rules made of it. */
export interface RuledValues {
  categoryId: string | null;
  categorySource: CategorySource | null;
  tagIds: string[];
  metadata: Record<string, unknown>;
  counterpartyId: string | null;
}

/**
 * The rules of one sync page, in the page's database transaction. The rows
 * the page is about to insert are judged first (`prepare`), on the values
 * they will be stored with, so the insert writes what the rules made of them
 * (`valuesOf`) and no new row is written twice. After the page's writes,
 * `finish` writes what else those rows' changes bring (annotations,
 * comments, series), runs the pipeline on the page's other new rows and on
 * its changed rows (read back, as applyRulesOnSync does), and adds the hit
 * counts, once. Call finish last in the page's transaction: it locks the
 * rules it counts hits for until the transaction ends.
 */
export class PageRules {
  private readonly judged = new Map<string, Outcome>();
  private readonly hits: HitCounts = new Map();

  private constructor(
    private readonly tx: Em,
    private readonly actor: Actor,
    private setup: { maps: ReferenceMaps; rules: CompiledRule[] } | null,
  ) {}

  private async load(): Promise<{ maps: ReferenceMaps; rules: CompiledRule[] }> {
    if (!this.setup) {
      const maps = await loadReferenceMaps(this.tx);
      this.setup = { maps, rules: (await loadEnabledRules(this.tx, maps)).rules };
    }
    return this.setup;
  }

  /** Judges `newRows` (not stored yet) with the rules that fire on creation. */
  static async prepare(tx: Em, newRows: readonly NewTransactionValues[], actor: Actor): Promise<PageRules> {
    const page = new PageRules(tx, actor, null);
    if (newRows.length === 0) return page;
    const { maps, rules } = await page.load();
    const onCreate = rules.filter((r) => firesOn(r.trigger, "create"));
    if (onCreate.length === 0) return page;
    // One read for the page (its accounts): the contexts are built from the values.
    for (const o of judge(await loadNewContexts(tx, newRows, maps), onCreate)) page.judged.set(o.t.id, o);
    await ensureAddedTags(tx, [...page.judged.values()], maps, actor);
    return page;
  }

  /** What the rules made of a prepared row (undefined: no rule matched it, insert it as it is). */
  valuesOf(id: string): RuledValues | undefined {
    const o = this.judged.get(id);
    if (!o) return undefined;
    const { r, t } = o;
    return {
      categoryId: r.after.categoryId,
      categorySource: r.after.categorySource,
      tagIds: nextTagIds(t, r, this.setup!.maps),
      metadata: r.after.metadata,
      counterpartyId: r.after.counterpartyId,
    };
  }

  /**
   * `inserted`: the prepared rows the page did insert (one it found stored
   * already is not new: it comes back in `changed` if its data changed);
   * `created`, `changed`: the page's other rows, as applyRulesOnSync takes them.
   */
  async finish(changes: {
    inserted: readonly string[];
    created: readonly string[];
    changed: readonly string[];
  }): Promise<RunSummary> {
    const summary: RunSummary = { matched: 0, changed: 0 };
    const done = changes.inserted.flatMap((id) => this.judged.get(id) ?? []);
    for (const o of done) for (const m of o.r.matched) this.hits.set(m.id, (this.hits.get(m.id) ?? 0) + 1);
    const effects = done.filter((o) => o.r.changed);
    summary.matched += done.length;
    summary.changed += effects.length;
    await writeEffects(this.tx, effects, this.actor);

    const created = [...new Set(changes.created)];
    const isNew = new Set(created);
    const changed = [...new Set(changes.changed)].filter((id) => !isNew.has(id));
    if (created.length > 0 || changed.length > 0) {
      const { maps, rules } = await this.load();
      const on = (event: SyncEvent) => rules.filter((r) => firesOn(r.trigger, event));
      for (const [ids, event] of [
        [created, "create"],
        [changed, "change"],
      ] as const) {
        const r = await runOn(this.tx, ids, on(event), maps, this.actor, this.hits);
        summary.matched += r.matched;
        summary.changed += r.changed;
      }
    }
    await writeHitCounts(this.tx, this.hits);
    return summary;
  }
}

type Outcome = { t: LoadedTransaction; r: PipelineResult };

function judge(loaded: LoadedTransaction[], rules: readonly CompiledRule[]): Outcome[] {
  const out: Outcome[] = [];
  for (const t of loaded) {
    const r = runPipeline(rules, t.context, t.state, LIMITS);
    if (r.matched.length > 0) out.push({ t, r });
  }
  return out;
}

/**
 * Runs `rules` (in pipeline order) on these transactions and writes the
 * changes; adds the matches to `hits` (the caller writes them once).
 *
 * Optimistic: rows are read without locks, and a change is written only if
 * the row is still the version that was read (transactions.seq). The rows a
 * concurrent writer changed meanwhile are read again, locked this time, and
 * judged again. Locking every row up front would write each one twice.
 */
export async function runOn(
  tx: Em,
  ids: readonly string[],
  rules: readonly CompiledRule[],
  maps: ReferenceMaps,
  actor: Actor,
  hits: HitCounts,
): Promise<RunSummary> {
  const summary: RunSummary = { matched: 0, changed: 0 };
  if (rules.length === 0) return summary;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const first = judge(await loadContexts(tx, ids.slice(i, i + CHUNK), maps), rules);
    await ensureAddedTags(tx, first, maps, actor);
    const written = await writeRows(
      tx,
      first.filter((o) => o.r.changed),
      maps,
      { checkVersion: true },
    );
    const stale = new Set(first.filter((o) => o.r.changed && !written.has(o.t.id)).map((o) => o.t.id));
    const outcomes = first.filter((o) => !stale.has(o.t.id));
    if (stale.size > 0) {
      const again = judge(await loadContexts(tx, [...stale], maps, { lock: true }), rules);
      await ensureAddedTags(tx, again, maps, actor);
      await writeRows(
        tx,
        again.filter((o) => o.r.changed),
        maps,
        { checkVersion: false },
      );
      outcomes.push(...again);
    }
    const changed = outcomes.filter((o) => o.r.changed);
    for (const o of outcomes) for (const m of o.r.matched) hits.set(m.id, (hits.get(m.id) ?? 0) + 1);
    summary.matched += outcomes.length;
    summary.changed += changed.length;
    await writeEffects(tx, changed, actor);
  }
  return summary;
}

/** Adds each rule's matches to hit_count and stamps last_hit_at. */
export async function writeHitCounts(tx: Em, hits: HitCounts): Promise<void> {
  await addRuleHits(tx, hits);
}

/** The stored tag ids with the pipeline's removals and additions, in order (new ones last). */
function nextTagIds(t: LoadedTransaction, r: PipelineResult, maps: ReferenceMaps): string[] {
  const removed = new Set(r.tagsRemoved.map((x) => maps.tagIdBySlug.get(x.slug)));
  const kept = t.tagIds.filter((id) => !removed.has(id));
  return [...kept, ...r.tagsAdded.map((x) => maps.tagIdBySlug.get(x.slug)!).filter((id) => !kept.includes(id))];
}

/** Tags a rule adds by slug that do not exist (flag's "flagged" on first use) are created. */
async function ensureAddedTags(tx: Em, outcomes: Outcome[], maps: ReferenceMaps, actor: Actor): Promise<void> {
  const missing = [...new Set(outcomes.flatMap(({ r }) => r.tagsAdded.map((a) => a.slug)))].filter(
    (s) => !maps.tagIdBySlug.has(s),
  );
  if (missing.length === 0) return;
  for (const [slug, id] of await ensureTags(tx, actor, missing)) {
    maps.tagIdBySlug.set(slug, id);
    maps.tags.set(id, slug);
  }
}

/**
 * Writes the rows' new values in one statement (and locks the changed rows
 * whose columns stay, e.g. only a comment is added). With `checkVersion`,
 * only rows still at the version that was read; returns the ids written.
 */
async function writeRows(
  tx: Em,
  outcomes: Outcome[],
  maps: ReferenceMaps,
  opts: { checkVersion: boolean },
): Promise<Set<string>> {
  const isRowChange = ({ r }: Outcome) =>
    r.category !== null ||
    r.tagsAdded.length > 0 ||
    r.tagsRemoved.length > 0 ||
    r.metadata.length > 0 ||
    r.counterparty !== null;
  const done = new Set<string>();
  const rows = outcomes.filter(isRowChange);
  if (rows.length > 0) {
    const updated = await writeRuledTransactions(
      tx,
      rows.map(({ t, r }) => ({
        id: t.id,
        seq: t.seq,
        category_id: r.after.categoryId,
        category_source: r.after.categorySource,
        tag_ids: nextTagIds(t, r, maps),
        metadata: r.after.metadata,
        counterparty_id: r.after.counterpartyId,
      })),
      opts,
    );
    for (const id of updated) done.add(id);
  }
  const others = outcomes.filter((o) => !isRowChange(o));
  if (others.length > 0) {
    const locked = await lockTransactionsAtVersion(
      tx,
      others.map(({ t }) => ({ id: t.id, seq: t.seq })),
      opts,
    );
    for (const id of locked) done.add(id);
  }
  return done;
}

/**
 * assign_series, through the series' own assignSeries: one call per target
 * and rule (its annotation names the rule), in batches it accepts. It fills
 * only rows in no series and in the series' currency; a series deleted since
 * the rules were read fills nothing (the sync must not fail over it).
 */
async function writeSeries(tx: Em, results: Outcome[], actor: Actor): Promise<void> {
  const groups = new Map<string, { o: NonNullable<PipelineResult["series"]>; ids: string[] }>();
  for (const { t, r } of results) {
    if (!r.series) continue;
    const key = JSON.stringify([r.series.target, r.series.by.id]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { o: r.series, ids: [] }));
    g.ids.push(t.id);
  }
  if (groups.size === 0) return;
  // assignSeries refuses a deleted row; one removed since it was judged is simply left out.
  const live = await liveTransactionIds(
    tx,
    [...groups.values()].flatMap((g) => g.ids),
  );
  for (const { o, ids: all } of groups.values()) {
    const ids = all.filter((id) => live.has(id));
    for (let i = 0; i < ids.length; i += MAX_SERIES_IDS) {
      await assignSeries(tx, actor, {
        ...o.target,
        transactionIds: ids.slice(i, i + MAX_SERIES_IDS),
        note: ruleDetails(o.by),
      }).catch((e: unknown) => {
        if (!(e instanceof CofferError && e.code === "NOT_FOUND")) throw e;
      });
    }
  }
}

/** What a change brings besides the row: series, comments, and one annotation per change naming the rule. */
async function writeEffects(tx: Em, results: Outcome[], actor: Actor): Promise<void> {
  if (results.length === 0) return;
  await writeSeries(tx, results, actor);

  const counterparties = await counterpartyShortIds(
    tx,
    results.flatMap(({ r }) => (r.counterparty ? [r.counterparty.toId, r.counterparty.fromId ?? []].flat() : [])),
  );
  const commentIds = await insertComments(tx, results);

  const notes: AnnotationInput[] = [];
  for (const { t, r } of results) {
    const note = (action: string, details: Record<string, unknown>, entity?: { type: "comment"; id: string }) =>
      notes.push({
        entityType: entity?.type ?? "transaction",
        entityId: entity?.id ?? t.id,
        transactionId: t.id,
        action,
        details,
      });
    if (r.category) {
      note("category_set", {
        from: r.category.from,
        to: r.category.to,
        source: "rule",
        previous_source: r.category.previousSource,
        ...ruleDetails(r.category.by),
      });
    }
    for (const a of r.tagsAdded) {
      note("tag_added", { tag: a.slug, ...ruleDetails(a.by), ...(a.flagReason ? { reason: a.flagReason } : {}) });
    }
    for (const a of r.tagsRemoved) note("tag_removed", { tag: a.slug, ...ruleDetails(a.by) });
    for (const m of r.metadata) {
      note("metadata_set", {
        keys_set: m.set.sort(),
        keys_removed: m.removed.sort(),
        replace: false,
        ...ruleDetails(m.by),
      });
    }
    if (r.counterparty) {
      const { fromId, toId, toName, by } = r.counterparty;
      note("counterparty_assigned", {
        counterparty_id: counterparties.get(toId) ?? null,
        counterparty_name: toName,
        previous_counterparty_id: fromId ? (counterparties.get(fromId) ?? null) : null,
        ...ruleDetails(by),
      });
    }
    // series_assigned is annotated by assignSeries (writeSeries), with the rule.
    for (const [i, c] of r.comments.entries()) {
      const comment = commentIds.get(`${t.id}:${i}`)!;
      note("comment_added", { comment_id: comment.shortId, ...ruleDetails(c.by) }, { type: "comment", id: comment.id });
    }
  }
  // One statement for the whole batch (insertAnnotations sends it as bound arrays).
  await recordAnnotations(tx, actor, notes);
}

/**
 * add_comment: one comment per action, authored by the rule (author_type
 * system, author_name "rule: <name>"). Returns the comments' ids by
 * "<transaction id>:<index>".
 */
async function insertComments(
  tx: Em,
  results: { t: LoadedTransaction; r: PipelineResult }[],
): Promise<Map<string, { id: string; shortId: string }>> {
  const out = new Map<string, { id: string; shortId: string }>();
  let pending = results.flatMap(({ t, r }) =>
    r.comments.map((c, i) => ({
      key: `${t.id}:${i}`,
      id: crypto.randomUUID(),
      transaction_id: t.id,
      body: c.content,
      author_name: `rule: ${c.by.name}`,
    })),
  );
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 5) throw new Error("could not allocate unique short ids for comments");
    const rows = pending.map((p) => ({ ...p, short_id: newShortId() }));
    const inserted = await insertCommentRows(
      tx,
      rows.map((r) => ({
        id: r.id,
        short_id: r.short_id,
        transaction_id: r.transaction_id,
        body: r.body,
        author_type: "system",
        author_key_id: null,
        author_name: r.author_name,
      })),
    );
    const done = new Set(inserted);
    for (const r of rows) if (done.has(r.id)) out.set(r.key, { id: r.id, shortId: r.short_id });
    pending = pending.filter((p) => !done.has(p.id));
  }
  return out;
}
