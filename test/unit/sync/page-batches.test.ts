import { describe, expect, it } from "vitest";
import { pageBatches } from "../../../services/sync/page-batches.js";
import type { ProviderTransaction, SyncPage } from "../../../services/sync/providers/provider.js";

// The engine commits the provider's pages that arrived while it committed the batch before, joined.

const tx = (id: string): ProviderTransaction => ({
  providerAccountId: "acc",
  providerTransactionId: id,
  amount: "1.00",
  isoCurrencyCode: "USD",
  date: "2026-01-02",
  authorizedDate: null,
  name: id,
  merchantName: null,
  categoryPrimary: null,
  categoryDetailed: null,
  pending: false,
  pendingTransactionId: null,
});

const page = (cursor: string, added: string[], more: Partial<SyncPage> = {}): SyncPage => ({
  added: added.map(tx),
  modified: [],
  removed: [],
  windows: [],
  skipped: [],
  nextCursor: cursor,
  ...more,
});

const summary = (b: { page: SyncPage; pages: number }) => ({
  ids: [...b.page.added, ...b.page.modified].map((t) => t.providerTransactionId),
  removed: b.page.removed.map((t) => t.providerTransactionId),
  cursor: b.page.nextCursor,
  pages: b.pages,
});

/** Pages handed out on demand: `release(n)` lets the provider answer n more calls. */
function gatedProvider(all: SyncPage[]) {
  const asked: number[] = [];
  let allowed = 0;
  let waiting: (() => void) | null = null;
  async function* pages() {
    for (const [i, p] of all.entries()) {
      asked.push(i + 1);
      while (allowed === 0) await new Promise<void>((r) => (waiting = r));
      allowed--;
      yield p;
    }
  }
  return {
    pages: pages(),
    asked,
    release(n: number) {
      allowed += n;
      waiting?.();
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("pageBatches", () => {
  it("hands over one page when only one arrived, and joins the pages that arrived during the commit", async () => {
    const p = gatedProvider([page("1", ["a"]), page("2", ["b"]), page("3", ["c"]), page("4", ["d"])]);
    const seen: ReturnType<typeof summary>[] = [];
    p.release(1);
    for await (const b of pageBatches(p.pages, 100)) {
      seen.push(summary(b));
      if (seen.length === 1) {
        // The commit of the first page: the provider is asked for more meanwhile, and answers twice.
        await tick();
        expect(p.asked).toEqual([1, 2]);
        p.release(2);
        await tick();
        expect(p.asked).toEqual([1, 2, 3, 4]);
        p.release(1);
      }
      await tick();
    }
    expect(seen).toEqual([
      { ids: ["a"], removed: [], cursor: "1", pages: 1 },
      { ids: ["b", "c", "d"], removed: [], cursor: "4", pages: 3 },
    ]);
  });

  it("never joins past the row limit, a page with a complete window, or a page naming a row in the batch", async () => {
    const windowed = page("4", ["w"], {
      windows: [{ providerAccountId: "acc", from: "2026-01-01", to: "2026-01-31" }],
    });
    const p = gatedProvider([
      page("1", ["a"]),
      page("2", ["b", "c", "d"]),
      page("3", ["e", "f"]),
      windowed,
      page("5", ["g"]),
      page("6", [], { removed: [{ providerAccountId: "acc", providerTransactionId: "g" }] }),
      page("7", ["h"]),
    ]);
    const seen: ReturnType<typeof summary>[] = [];
    p.release(1);
    for await (const b of pageBatches(p.pages, 4)) {
      seen.push(summary(b));
      if (seen.length === 1) p.release(6);
      // Every page the provider may send arrives before the next batch is taken.
      await tick();
    }
    expect(seen).toEqual([
      { ids: ["a"], removed: [], cursor: "1", pages: 1 },
      { ids: ["b", "c", "d"], removed: [], cursor: "2", pages: 1 },
      { ids: ["e", "f"], removed: [], cursor: "3", pages: 1 },
      { ids: ["w"], removed: [], cursor: "4", pages: 1 },
      { ids: ["g"], removed: [], cursor: "5", pages: 1 },
      { ids: ["h"], removed: ["g"], cursor: "7", pages: 2 },
    ]);
  });

  it("hands over the pages that arrived before a failure, then throws it, never as unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      async function* pages() {
        yield page("1", ["a"]);
        yield page("2", ["b"]);
        throw new Error("provider down");
      }
      const got: string[] = [];
      await expect(
        (async () => {
          for await (const b of pageBatches(pages())) {
            await tick();
            got.push(b.page.nextCursor);
          }
        })(),
      ).rejects.toThrow("provider down");
      expect(got.at(-1)).toBe("2");
      // A consumer that stops before reaching the failure does not see it either.
      for await (const _ of pageBatches(pages())) {
        await tick();
        break;
      }
      await tick();
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("ends the provider's iteration when the consumer stops early", async () => {
    let finished = false;
    async function* pages() {
      try {
        for (let i = 0; ; i++) yield page(String(i), [`t${i}`]);
      } finally {
        finished = true;
      }
    }
    for await (const b of pageBatches(pages(), 3)) if (Number(b.page.nextCursor) >= 5) break;
    await tick();
    expect(finished).toBe(true);
  });
});
