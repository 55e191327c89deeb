import { describe, expect, it } from "vitest";
import { readAhead } from "../../../services/sync/engine.js";

// The engine asks the provider for the next page while it commits the one it has.

describe("readAhead", () => {
  it("asks for the next page as soon as one is handed over, and yields every page in order", async () => {
    const asked: number[] = [];
    async function* pages() {
      for (let i = 1; i <= 3; i++) {
        asked.push(i);
        yield i;
      }
    }
    const seen: [number, number[]][] = [];
    for await (const p of readAhead(pages())) {
      await new Promise((r) => setTimeout(r, 5)); // the commit
      seen.push([p, [...asked]]);
    }
    expect(seen).toEqual([
      [1, [1, 2]],
      [2, [1, 2, 3]],
      [3, [1, 2, 3]],
    ]);
  });

  it("reports a failure of the page read ahead when it is reached, never as an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      async function* pages() {
        yield 1;
        throw new Error("provider down");
      }
      const got: number[] = [];
      await expect(
        (async () => {
          for await (const p of readAhead(pages())) {
            await new Promise((r) => setTimeout(r, 20));
            got.push(p);
          }
        })(),
      ).rejects.toThrow("provider down");
      expect(got).toEqual([1]);
      // A consumer that stops before reaching the failed page does not see it either.
      for await (const _ of readAhead(pages())) {
        await new Promise((r) => setTimeout(r, 20));
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("ends the provider's iteration when the consumer stops early", async () => {
    let finished = false;
    async function* pages() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        finished = true;
      }
    }
    for await (const p of readAhead(pages())) if (p === 2) break;
    await new Promise((r) => setTimeout(r, 10));
    expect(finished).toBe(true);
  });
});
