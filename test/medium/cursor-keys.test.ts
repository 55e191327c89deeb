import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Em } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import { listTransactions } from "../../services/ledger/transactions/list.js";
import { encodeCursor } from "../../services/pagination/cursor.js";
import { CursorKeyring, rotateCursorKey } from "../../services/pagination/cursor-keys.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// Signed cursors (reproducer F: a client rebuilt a cursor around an unkeyed
// checksum and reached SQL with it). The keys live in the database, are shared
// by every core, rotate by themselves, and the previous key verifies for 24 h.

let s: Stack;
const em = (): Em => s.orm.em.fork();

beforeAll(async () => {
  s = await startStack();
  const user = await newUser(em(), "Pat");
  const account = await newAccount(em(), user.id);
  await newTransactions(
    em(),
    account.id,
    Array.from({ length: 6 }, (_, i) => ({ providerName: `Shop ${i}`, date: `2026-03-0${1 + i}` })),
  );
});
afterAll(async () => {
  await s?.close();
});

const page = (keys: CursorKeyring, cursor = "") =>
  listTransactions(em(), { limit: 2, cursor, sortBy: "", sortOrder: "", filter: { tags: [], anyTag: [] } }, keys);

async function cursorError(p: Promise<unknown>): Promise<CofferError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CofferError);
  expect((e as CofferError).code).toBe("INVALID_CURSOR");
  return e as CofferError;
}

const generations = async () =>
  (await query<{ generation: string }>(em(), `select generation::text from cursor_keys order by generation`)).map((r) =>
    Number(r.generation),
  );
const generationOf = (cursor: string) => (JSON.parse(Buffer.from(cursor, "base64url").toString()) as { k: number }).k;
/** Moves the newest key's birth back in time. */
const ageNewestKey = (seconds: number) =>
  query(
    em(),
    `update cursor_keys set created_at = created_at - make_interval(secs => ?)
     where generation = (select max(generation) from cursor_keys)`,
    [seconds],
  );

describe("cursor keys", () => {
  it("the migration made one key; cursors name its generation and verify with it", async () => {
    const [first] = await generations();
    const p1 = await page(new CursorKeyring());
    expect(generationOf(p1.nextCursor)).toBe(first);
    expect((await page(new CursorKeyring(), p1.nextCursor)).transactions).toHaveLength(2);
  });

  it("after a rotation the previous key verifies for 24 hours, then no more", async () => {
    const before = await page(new CursorKeyring());
    expect(await rotateCursorKey(em(), 0)).toBe(true);
    const keys = new CursorKeyring();
    const after = await page(keys);
    expect(generationOf(after.nextCursor)).toBe(generationOf(before.nextCursor) + 1);
    // A cursor issued just before the rotation keeps working.
    expect((await page(keys, before.nextCursor)).transactions).toHaveLength(2);

    await ageNewestKey(24 * 3600 + 60);
    const later = new CursorKeyring();
    expect((await cursorError(page(later, before.nextCursor))).message).toMatch(/no longer accepts/);
    expect((await page(later, after.nextCursor)).transactions).toHaveLength(2);
  });

  it("rotates once when the newest key is 30 days old, however many cores try at once", async () => {
    // Not due yet; but the key replaced more than 24 h ago verifies nothing any more, so it goes.
    expect(await rotateCursorKey(em())).toBe(false);
    const [aged, ...none] = await generations();
    expect(none).toEqual([]);
    await ageNewestKey(30 * 24 * 3600 + 60);
    const results = await Promise.all([1, 2, 3, 4].map(() => rotateCursorKey(em())));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await rotateCursorKey(em())).toBe(false);
    expect(await generations()).toEqual([aged, aged + 1]);
  });

  it("a core that has not seen another core's new key yet accepts cursors signed with it", async () => {
    const slow = new CursorKeyring({ refreshMs: 3_600_000 });
    const p1 = await page(slow);
    await rotateCursorKey(em(), 0);
    const fresh = await page(new CursorKeyring());
    expect(generationOf(fresh.nextCursor)).toBeGreaterThan(generationOf(p1.nextCursor));
    expect((await page(slow, fresh.nextCursor)).transactions).toHaveLength(2);
  });

  it("a cursor naming a generation that never existed is refused", async () => {
    const keys = new CursorKeyring();
    const p1 = await page(keys);
    const payload = JSON.parse(Buffer.from(p1.nextCursor, "base64url").toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, k: 999_999 })).toString("base64url");
    expect((await cursorError(page(keys, forged))).message).toMatch(/no longer accepts/);
  });
});

describe("F. forged cursors through the REST gateway", () => {
  const list = (cursor: string) =>
    s.rest.inject({ method: "GET", url: `/api/v1/transactions?limit=2&cursor=${cursor}`, headers: key(s.readKey) });

  async function firstPage(): Promise<Record<string, unknown>> {
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/transactions?limit=2", headers: key(s.readKey) });
    const cursor = res.json<{ next_cursor: string }>().next_cursor;
    return JSON.parse(Buffer.from(cursor, "base64url").toString()) as Record<string, unknown>;
  }

  it("a cursor rebuilt with the old unkeyed checksum and a watermark of 0:0: → 400 INVALID_CURSOR", async () => {
    const p = await firstPage();
    const fields = { d: p.d as string, i: p.i as string, f: p.f as string, w: "0:0:", t: p.t as number };
    const c = createHash("sha256")
      .update(JSON.stringify([1, fields.d, fields.i, fields.f, fields.w, fields.t]))
      .digest("base64url")
      .slice(0, 16);
    const forged = Buffer.from(JSON.stringify({ v: 1, ...fields, c })).toString("base64url");
    expectEnvelope(await list(forged), "INVALID_CURSOR", /restart from the first page/);
  });

  it("a cursor signed with a key of the client's own → 400 INVALID_CURSOR", async () => {
    const p = await firstPage();
    const fields = { d: p.d as string, i: p.i as string, f: p.f as string, w: "0:0:", t: p.t as number };
    const forged = encodeCursor(fields, { generation: p.k as number, secret: Buffer.alloc(32, 7) });
    expectEnvelope(await list(forged), "INVALID_CURSOR", /altered/);
  });

  it("a genuine cursor still pages", async () => {
    const first = await s.rest.inject({ method: "GET", url: "/api/v1/transactions?limit=2", headers: key(s.readKey) });
    const next = await list(first.json<{ next_cursor: string }>().next_cursor);
    expect(next.statusCode).toBe(200);
    expect(next.json<{ transactions: unknown[] }>().transactions).toHaveLength(2);
  });
});
