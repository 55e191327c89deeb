import type { SyncPage } from "./providers/provider.js";

/**
 * How many rows one database transaction of a sync commits at most when it
 * joins provider pages (a CSV page already holds this many). Plaid hands out
 * 500 transactions a page; each page transaction costs a dozen round trips
 * and a rules setup besides its rows, so 200 of them for 100,000 rows cost
 * more than the rows (bench/sync/README.md).
 */
export const MAX_BATCH_ROWS = 5000;

/** Provider pages committed together, as one page; `pages` counts them (the sync log counts provider pages). */
export interface PageBatch {
  page: SyncPage;
  pages: number;
}

const rowsOf = (p: SyncPage) => p.added.length + p.modified.length + p.removed.length;

function keysOf(p: SyncPage): string[] {
  return [...p.added, ...p.modified, ...p.removed].map((t) => `${t.providerAccountId}\u0000${t.providerTransactionId}`);
}

/**
 * The provider's pages, read ahead while the engine commits, and handed over
 * joined: each batch is every page that arrived while the previous batch
 * committed (never waiting for more), up to MAX_BATCH_ROWS rows. Joined
 * pages commit exactly as they would one after the other, so pages are only
 * joined when that is plain: neither has a complete window (the window rule
 * reads one page's rows), and no row is named by both (a row added, then
 * changed or removed, is applied in its pages' order). The cursor committed
 * is the last page's. A page read ahead is never committed early; a failure
 * of the provider is thrown once the pages that arrived before it are handed
 * over, so what arrived is committed first.
 */
export async function* pageBatches(
  pages: AsyncIterable<SyncPage>,
  maxRows = MAX_BATCH_ROWS,
): AsyncGenerator<PageBatch> {
  const it = pages[Symbol.asyncIterator]();
  const queue: SyncPage[] = [];
  let queuedRows = 0;
  let reading = false;
  let ended = false;
  let stopped = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  // One provider call at a time, started as soon as the one before answers while less than a batch waits.
  const pump = () => {
    if (reading || ended || stopped || failure || queuedRows >= maxRows) return;
    reading = true;
    it.next().then(
      (step) => {
        reading = false;
        if (step.done) ended = true;
        else {
          queue.push(step.value);
          queuedRows += rowsOf(step.value);
        }
        notify();
        pump();
      },
      (error: unknown) => {
        reading = false;
        failure = { error };
        notify();
      },
    );
  };
  try {
    pump();
    for (;;) {
      while (queue.length === 0 && !ended && !failure) await new Promise<void>((r) => (wake = r));
      if (queue.length === 0) {
        if (failure) throw (failure as { error: unknown }).error;
        return;
      }
      const batch = take(queue, maxRows);
      queuedRows -= rowsOf(batch.page);
      pump();
      yield batch;
    }
  } finally {
    stopped = true;
    // Stopped early: end the provider's iteration without waiting for a request still in flight.
    if (!ended && !failure) void Promise.resolve(it.return?.()).catch(() => undefined);
  }
}

/** The first queued page and the ones after it that join it plainly (see pageBatches), removed from the queue. */
function take(queue: SyncPage[], maxRows: number): PageBatch {
  const first = queue.shift()!;
  if (first.windows.length > 0) return { page: first, pages: 1 };
  const page: SyncPage = {
    added: [...first.added],
    modified: [...first.modified],
    removed: [...first.removed],
    windows: [],
    skipped: [...first.skipped],
    nextCursor: first.nextCursor,
  };
  const keys = new Set(keysOf(first));
  let rows = rowsOf(first);
  let pages = 1;
  while (queue.length > 0) {
    const next = queue[0];
    const nextKeys = keysOf(next);
    if (next.windows.length > 0 || rows + rowsOf(next) > maxRows || nextKeys.some((k) => keys.has(k))) break;
    queue.shift();
    for (const k of nextKeys) keys.add(k);
    rows += rowsOf(next);
    pages++;
    page.added.push(...next.added);
    page.modified.push(...next.modified);
    page.removed.push(...next.removed);
    page.skipped.push(...next.skipped);
    page.nextCursor = next.nextCursor;
  }
  return { page, pages };
}
