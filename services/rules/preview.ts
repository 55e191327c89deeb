import type { Em } from "../db/orm.js";
import { MATCH_ALL } from "../db/queries/transaction-filter.js";
import { prefilter } from "../db/queries/rule-prefilter.js";
import { limitPreviewTransaction, previewSampleRows } from "../db/queries/rule-preview.js";
import { countLiveTransactions } from "../db/tables/transactions.js";
import { CofferError, validation } from "../errors/coffer-error.js";
import { conditionsMatch } from "./engine/index.js";
import { scanContexts } from "./context-loader.js";
import { categorySlugOf, loadReferenceMaps } from "./references.js";
import { parseConditions } from "./rules.js";

/**
 * preview_rule: a dry run of a condition tree over every stored (not
 * deleted) transaction. No writes, no hit counts, no pipeline: each
 * transaction is judged on its stored values alone. The scan reads only the
 * columns the conditions need, narrowed by the prefilter, in batches through
 * a cursor; the evaluator decides every row. It runs under a time budget
 * (COFFER_RULE_PREVIEW_TIMEOUT_MS): PostgreSQL's statement timeout bounds
 * each statement, the clock is checked as the rows are judged, and the
 * evaluation lets other requests in every 20 ms, so an expensive tree cannot
 * stall the core.
 */

export interface PreviewSample {
  shortId: string;
  date: string;
  amount: string;
  name: string;
  providerCategoryPrimary: string | null;
  categorySlug: string;
}

export interface PreviewResult {
  matchCount: number;
  totalScanned: number;
  /** The newest matches (date, then short id, descending). */
  samples: PreviewSample[];
}

export const SAMPLE_SIZE = { default: 10, max: 50 } as const;

/** How long the evaluation runs before it lets other requests in. */
const SLICE_MS = 20;

export function parseSampleSize(raw: number | undefined): number {
  if (raw === undefined || raw === 0) return SAMPLE_SIZE.default;
  if (!Number.isInteger(raw) || raw < 1 || raw > SAMPLE_SIZE.max) {
    throw new CofferError("INVALID_PARAMETER", `sample_size must be between 1 and ${SAMPLE_SIZE.max}`);
  }
  return raw;
}

const isQueryCanceled = (e: unknown) => (e as { code?: unknown } | null)?.code === "57014";

export async function previewRule(
  em: Em,
  input: { conditions: unknown; sampleSize?: number },
  opts: { timeoutMs: number },
): Promise<PreviewResult> {
  const sampleSize = parseSampleSize(input.sampleSize);
  const { compiled } = await parseConditions(em, input.conditions);
  const started = performance.now();
  const deadline = started + opts.timeoutMs;
  let total = 0;
  const tooSlow = () =>
    validation(
      `preview_rule stopped after ${opts.timeoutMs} ms: these conditions take too long to judge on ` +
        `${total || "the stored"} transactions; narrow them (for example with a contains on the name or a ` +
        "range of amounts) or simplify them",
    );
  const remaining = () => {
    const ms = Math.floor(deadline - performance.now());
    if (ms <= 0) throw tooSlow();
    return ms;
  };

  let matchCount = 0;
  const top: { day: number; shortId: string }[] = [];
  const newer = (a: { day: number; shortId: string }, b: { day: number; shortId: string }) =>
    a.day > b.day || (a.day === b.day && a.shortId > b.shortId);

  try {
    await em.transactional(async (tx) => {
      // One statement timeout for the whole budget (each statement is bounded by it; between
      // statements the clock is checked here), not one per statement: a round trip costs.
      await limitPreviewTransaction(tx, remaining());
      total = await countLiveTransactions(tx);
      const maps = await loadReferenceMaps(tx);
      // The scan waits for the database between batches, and the evaluation of a batch lets other
      // requests in every SLICE_MS (a large tree can cost a millisecond per row); the clock is checked as it goes.
      let slice = performance.now();
      await scanContexts(tx, {
        where: prefilter(compiled) ?? MATCH_ALL,
        fields: compiled.fields,
        maps,
        beforeFetch: async () => void remaining(),
        async onBatch(batch) {
          for (let i = 0; i < batch.length; i++) {
            const t = batch[i];
            if ((i & 63) === 63 && performance.now() - slice > SLICE_MS) {
              remaining();
              await new Promise((r) => setImmediate(r));
              slice = performance.now();
            }
            if (conditionsMatch(compiled, t.context)) {
              matchCount++;
              const row = { day: t.day, shortId: t.shortId };
              if (top.length < sampleSize || newer(row, top[top.length - 1])) {
                let at = top.length;
                while (at > 0 && newer(row, top[at - 1])) at--;
                top.splice(at, 0, row);
                if (top.length > sampleSize) top.pop();
              }
            }
          }
        },
      });
      remaining();
    });
  } catch (e) {
    if (isQueryCanceled(e)) throw tooSlow();
    throw e;
  }
  return {
    matchCount,
    totalScanned: total,
    samples: await loadSamples(
      em,
      top.map((t) => t.shortId),
    ),
  };
}

async function loadSamples(em: Em, shortIds: string[]): Promise<PreviewSample[]> {
  if (shortIds.length === 0) return [];
  const maps = await loadReferenceMaps(em);
  const rows = await previewSampleRows(em, shortIds);
  return rows.map((r) => ({
    shortId: r.short_id,
    date: r.date,
    amount: r.amount,
    name: r.name,
    providerCategoryPrimary: r.provider_category_primary,
    categorySlug: categorySlugOf(maps, r.category_id),
  }));
}
