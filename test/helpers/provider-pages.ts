import type { ProviderTransaction, SyncPage } from "../../services/sync/providers/provider.js";

/** Every page of one sync run (throws what the run throws, after the pages it yielded). */
export async function collect(pages: AsyncIterable<SyncPage>): Promise<SyncPage[]> {
  const out: SyncPage[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

/** Runs a sync into `store` page by page, as the engine would, keeping the pages it got before a failure. */
export async function drain(
  pages: AsyncIterable<SyncPage>,
  store: LedgerStub,
): Promise<{ pages: SyncPage[]; error: unknown }> {
  const seen: SyncPage[] = [];
  try {
    for await (const page of pages) {
      store.apply(page);
      seen.push(page);
    }
    return { pages: seen, error: null };
  } catch (error) {
    return { pages: seen, error };
  }
}

/**
 * The end state a sync engine reaches from a provider's pages, without a
 * database: upsert added and modified by (account, id), delete removed, and
 * drop a stored pending row inside a complete window the page does not hold.
 * The tests compare it with the fake's own state.
 */
export class LedgerStub {
  readonly rows = new Map<string, ProviderTransaction>();
  cursor: string | null = null;

  apply(page: SyncPage): void {
    const key = (accountId: string, id: string) => `${accountId}\n${id}`;
    for (const txn of [...page.added, ...page.modified]) {
      this.rows.set(key(txn.providerAccountId, txn.providerTransactionId), txn);
    }
    for (const r of page.removed) this.rows.delete(key(r.providerAccountId, r.providerTransactionId));
    for (const w of page.windows) {
      const present = new Set(
        [...page.added, ...page.modified]
          .filter((t) => t.providerAccountId === w.providerAccountId)
          .map((t) => t.providerTransactionId),
      );
      for (const [k, txn] of this.rows) {
        if (txn.providerAccountId !== w.providerAccountId || !txn.pending) continue;
        if (txn.date >= w.from && txn.date <= w.to && !present.has(txn.providerTransactionId)) this.rows.delete(k);
      }
    }
    this.cursor = page.nextCursor;
  }

  byId(id: string): ProviderTransaction | undefined {
    return [...this.rows.values()].find((t) => t.providerTransactionId === id);
  }

  ids(): string[] {
    return [...this.rows.values()].map((t) => t.providerTransactionId).sort();
  }
}
