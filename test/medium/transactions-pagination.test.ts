import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListTransactionsRequest, TransactionFilter } from "../../gen/coffer/v1/transactions_pb.js";
import { openOrm, type Em, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import type { ErrorCode } from "../../common/errors.js";
import { newShortId } from "../../services/ids/short-id.js";
import { encodeCursor } from "../../services/pagination/cursor.js";
import { CursorKeyring } from "../../services/pagination/cursor-keys.js";
import { listTransactions, type ListResult } from "../../services/ledger/transactions/list.js";
import { purgeTransactionVersions } from "../../services/ledger/transactions/versions.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";

let orm: Orm;
let url: string;
const em = (): Em => orm.em.fork();
const cursorKeys = new CursorKeyring();
let user: { id: string; shortId: string };

beforeAll(async () => {
  url = await createTestDatabase();
  orm = await openOrm(url, 4);
  user = await newUser(em(), "Pat");
});
afterAll(async () => {
  await orm?.close();
});

/** `n` transactions over a few days (so many share a date and the id breaks ties). */
async function accountWith(n: number, opts: { days?: number; pendingEvery?: number } = {}) {
  const account = await newAccount(em(), user.id);
  const days = opts.days ?? 5;
  const ids = await newTransactions(
    em(),
    account.id,
    Array.from({ length: n }, (_, i) => ({
      providerName: `Shop ${i}`,
      date: `2026-03-${String(1 + (i % days)).padStart(2, "0")}`,
      amount: `${i + 1}.00`,
      pending: opts.pendingEvery ? i % opts.pendingEvery === 0 : false,
    })),
  );
  return { ...account, ids };
}

type Req = Partial<Omit<ListTransactionsRequest, "filter">> & { filter?: Partial<TransactionFilter> };
const list = (r: Req): Promise<ListResult> =>
  listTransactions(
    em(),
    {
      limit: r.limit ?? 0,
      cursor: r.cursor ?? "",
      sortBy: r.sortBy ?? "",
      sortOrder: r.sortOrder ?? "",
      filter: { tags: [], anyTag: [], ...r.filter },
    },
    cursorKeys,
  );

/** Reads every page; `between` runs after each page (a concurrent change, say). */
async function readAll(r: Req, between?: (pageNo: number) => Promise<void>): Promise<ListResult[]> {
  const pages: ListResult[] = [];
  let cursor = "";
  do {
    const page = await list({ ...r, cursor });
    pages.push(page);
    cursor = page.nextCursor;
    if (between) await between(pages.length);
  } while (cursor !== "");
  return pages;
}

async function failsWith(p: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, "the call should fail").toBeInstanceOf(CofferError);
  expect((e as CofferError).code).toBe(code);
  if (message) expect((e as CofferError).message).toMatch(message);
}

interface RowState {
  id: string;
  date: string;
  amount: string;
  name: string;
}

/** The live rows of an account right now, in list order. */
async function current(accountId: string, extra = "true"): Promise<RowState[]> {
  return query<RowState>(
    em(),
    `select id, to_char(date, 'YYYY-MM-DD') as date, amount::text as amount, provider_name as name
     from transactions where account_id = ? and deleted_at is null and ${extra} order by date desc, id desc`,
    [accountId],
  );
}

const stateOf = (pages: ListResult[]): RowState[] =>
  pages.flatMap((p) => p.transactions.map((t) => ({ id: t.id, date: t.date, amount: t.amount, name: t.providerName })));

describe("cursor pagination: the page contract", () => {
  it("walks every page in order; has_more and next_cursor say when it is done", async () => {
    const a = await accountWith(33);
    const pages = await readAll({ filter: { accountId: a.shortId }, limit: 7 });
    expect(pages.map((p) => p.transactions.length)).toEqual([7, 7, 7, 7, 5]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, true, true, false]);
    for (const p of pages.slice(0, -1)) expect(p.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(pages[4].nextCursor).toBe("");
    expect(stateOf(pages)).toEqual(await current(a.id));
  });

  it("a last page that is exactly full still says has_more false (no empty extra page)", async () => {
    const a = await accountWith(28);
    const pages = await readAll({ filter: { accountId: a.id }, limit: 7 });
    expect(pages.map((p) => [p.transactions.length, p.hasMore])).toEqual([
      [7, true],
      [7, true],
      [7, true],
      [7, false],
    ]);
  });

  it("sort_order asc pages oldest first with the same guarantees", async () => {
    const a = await accountWith(12);
    const pages = await readAll({ filter: { accountId: a.id }, limit: 5, sortOrder: "asc" });
    expect(stateOf(pages)).toEqual((await current(a.id)).reverse());
  });

  it("limit: default 50, at most 500, at least 1", async () => {
    const a = await accountWith(61, { days: 28 });
    const page = await list({ filter: { accountId: a.id } });
    expect(page.transactions).toHaveLength(50);
    expect(page.hasMore).toBe(true);
    expect((await list({ filter: { accountId: a.id }, limit: 500 })).transactions).toHaveLength(61);
    await failsWith(list({ limit: 501 }), "INVALID_PARAMETER", /limit/);
    await failsWith(list({ limit: -1 }), "INVALID_PARAMETER", /limit/);
  });

  it("the same filters written another way continue the same pagination", async () => {
    const a = await accountWith(10);
    const first = await list({ filter: { accountId: a.shortId, minAmount: "2", tags: [] }, limit: 4 });
    const next = await list({ filter: { accountId: a.id, minAmount: "2.00" }, limit: 4, cursor: first.nextCursor });
    expect(next.transactions).toHaveLength(4);
  });

  it("a cursor presented with other filters or another sort → INVALID_CURSOR", async () => {
    const a = await accountWith(10);
    const first = await list({ filter: { accountId: a.id }, limit: 3 });
    const c = first.nextCursor;
    await failsWith(
      list({ filter: { accountId: a.id, pending: false }, limit: 3, cursor: c }),
      "INVALID_CURSOR",
      /different filters.*restart from the first page/,
    );
    await failsWith(list({ filter: {}, limit: 3, cursor: c }), "INVALID_CURSOR");
    await failsWith(list({ filter: { accountId: a.id }, limit: 3, cursor: c, sortOrder: "asc" }), "INVALID_CURSOR");
    await failsWith(
      list({ filter: { accountId: a.id }, limit: 3, cursor: c, sortBy: "amount" }),
      "INVALID_CURSOR",
      /single page/,
    );
    await failsWith(list({ filter: { accountId: a.id }, limit: 3, cursor: c, sortBy: "name" }), "INVALID_CURSOR");
    // A different limit is fine: only filters and sort are pinned.
    expect((await list({ filter: { accountId: a.id }, limit: 5, cursor: c })).transactions).toHaveLength(5);
  });

  it("a malformed, altered or expired cursor → INVALID_CURSOR, never a server error", async () => {
    const a = await accountWith(6);
    const first = await list({ filter: { accountId: a.id }, limit: 2 });
    const payload = JSON.parse(Buffer.from(first.nextCursor, "base64url").toString()) as {
      d: string;
      i: string;
      f: string;
      w: string;
      t: number;
    };
    // Signed with the real key: authentic, but positions Coffer never issues.
    const key = await cursorKeys.signingKey(em());
    const forged = (patch: Partial<typeof payload>) => encodeCursor({ ...payload, ...patch }, key);
    const bad = [
      "garbage",
      "!!!",
      Buffer.from('{"v":1}').toString("base64url"),
      first.nextCursor.slice(0, -3),
      forged({ d: "2026-13-45" }),
      forged({ d: "2026-02-30" }),
      forged({ d: "yesterday" }),
      forged({ i: "not-a-uuid" }),
      forged({ w: "1:2:3" }),
      forged({ w: "5:3:" }),
      forged({ w: "1:9:4,2" }),
      forged({ w: "drop table" }),
      forged({ w: "0:0:" }),
      forged({ w: "0:5:" }),
      forged({ d: "0000-01-01" }),
      forged({ d: "3000-01-01" }),
      forged({ t: payload.t - 25 * 3600 }),
    ];
    for (const cursor of bad)
      await failsWith(
        list({ filter: { accountId: a.id }, limit: 2, cursor }),
        "INVALID_CURSOR",
        /restart from the first page/,
      );
  });

  it("a cursor whose anchor transaction was deleted (soft or hard) → INVALID_CURSOR", async () => {
    const a = await accountWith(9);
    const first = await list({ filter: { accountId: a.id }, limit: 3 });
    const anchor = first.transactions[2].id;
    await query(em(), `update transactions set deleted_at = now() where id = ?`, [anchor]);
    await failsWith(
      list({ filter: { accountId: a.id }, limit: 3, cursor: first.nextCursor }),
      "INVALID_CURSOR",
      /no longer exists/,
    );
    await query(em(), `update transactions set deleted_at = null where id = ?`, [anchor]);
    expect((await list({ filter: { accountId: a.id }, limit: 3, cursor: first.nextCursor })).transactions).toHaveLength(
      3,
    );

    const again = await list({ filter: { accountId: a.id }, limit: 3 });
    await query(em(), `delete from transactions where id = ?`, [again.transactions[2].id]);
    await failsWith(
      list({ filter: { accountId: a.id }, limit: 3, cursor: again.nextCursor }),
      "INVALID_CURSOR",
      /no longer exists/,
    );
  });
});

describe("cursor pagination: a consistent snapshot", () => {
  it("later pages show the rows page 1 could see, as they were then", async () => {
    const a = await accountWith(20, { pendingEvery: 4 });
    const filter = { accountId: a.id, pending: false };
    const before = await current(a.id, "not pending");
    const page1 = await list({ filter, limit: 5 });
    expect(stateOf([page1])).toEqual(before.slice(0, 5));

    const c = em();
    const unread = before.slice(8);
    // New rows: newest, in the middle, oldest.
    await newTransactions(c, a.id, [
      { providerName: "late newest", date: "2026-04-01" },
      { providerName: "late middle", date: "2026-03-03" },
      { providerName: "late oldest", date: "2026-02-01" },
    ]);
    // An unread row moves before the anchor with a new amount; a read one moves after it.
    await query(c, `update transactions set date = '2026-04-02', amount = 999 where id = ?`, [unread[0].id]);
    await query(c, `update transactions set date = '2026-02-02', provider_name = 'renamed' where id = ?`, [
      before[0].id,
    ]);
    // An unread row leaves the filter, a pending one joins it, another is soft-deleted, another changed twice.
    await query(c, `update transactions set pending = true where id = ?`, [unread[1].id]);
    await query(c, `update transactions set pending = false where account_id = ? and pending`, [a.id]);
    await query(c, `update transactions set deleted_at = now() where id = ?`, [unread[2].id]);
    await query(c, `update transactions set amount = 1 where id = ?`, [unread[3].id]);
    await query(c, `update transactions set amount = 2, date = '2026-01-01' where id = ?`, [unread[3].id]);

    let cursor = page1.nextCursor;
    const rest: ListResult[] = [];
    while (cursor) {
      const p = await list({ filter, limit: 5, cursor });
      rest.push(p);
      cursor = p.nextCursor;
    }
    expect(stateOf([page1, ...rest])).toEqual(before);
    // A new first page sees the present.
    const now = stateOf(await readAll({ filter, limit: 50 }));
    expect(now.map((r) => r.name)).toContain("late newest");
    expect(now.find((r) => r.id === unread[0].id)?.amount).toBe("999.00");
  });

  it("a writer still open while page 1 is read never shows up later (no duplicate, no extra row)", async () => {
    const a = await accountWith(15);
    const before = await current(a.id);
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query("begin");
      // The writer takes its sequence numbers and transaction id before page 1 is read...
      await writer.query(
        `insert into transactions
           (id, short_id, account_id, amount, iso_currency_code, date, provider, provider_transaction_id, provider_name)
         values ($1, $2, $3, 5, 'USD', '2026-03-03', 'csv', $4, 'in flight')`,
        [crypto.randomUUID(), newShortId(), a.id, `inflight-${crypto.randomUUID()}`],
      );
      // ...and moves the newest row (which page 1 returns) to the oldest end.
      await writer.query(`update transactions set date = '2026-01-01', amount = 777 where id = $1`, [before[0].id]);
      const page1 = await list({ filter: { accountId: a.id }, limit: 4 });
      expect(stateOf([page1])).toEqual(before.slice(0, 4));
      // ...and commits before page 2.
      await writer.query("commit");
      let cursor = page1.nextCursor;
      const rest: ListResult[] = [];
      while (cursor) {
        const p = await list({ filter: { accountId: a.id }, limit: 4, cursor });
        rest.push(p);
        cursor = p.nextCursor;
      }
      expect(stateOf([page1, ...rest])).toEqual(before);
    } finally {
      await writer.end();
    }
  });

  it("under a concurrent writer inserting and updating rows: no duplicates, no skips", async () => {
    const a = await accountWith(300, { days: 28, pendingEvery: 3 });
    const tag = crypto.randomUUID();
    await query(em(), `insert into tags (id, short_id, slug, display_name) values (?, ?, 'conc', 'conc')`, [
      tag,
      newShortId(),
    ]);
    for (const filter of [{ accountId: a.id }, { accountId: a.id, pending: false }]) {
      const expected = await current(a.id, filter.pending === false ? "not pending" : "true");
      const page1 = await list({ filter, limit: 20 });

      const writer = new pg.Client({ connectionString: url });
      await writer.connect();
      let stop = false;
      let writes = 0;
      const work = (async () => {
        for (let i = 0; !stop; i++) {
          const day = 1 + ((i * 7) % 28);
          await writer.query(
            `insert into transactions (id, short_id, account_id, amount, iso_currency_code, date, provider,
               provider_transaction_id, provider_name, pending)
             values ($1, $2, $3, 1.23, 'USD', $4, 'csv', $5, 'concurrent insert', $6)`,
            [
              crypto.randomUUID(),
              newShortId(),
              a.id,
              `2026-03-${String(day).padStart(2, "0")}`,
              `conc-${crypto.randomUUID()}`,
              i % 2 === 0,
            ],
          );
          const victim = expected[(i * 37) % expected.length].id;
          await writer.query(
            `update transactions set amount = amount + 1000, provider_name = provider_name || ' (updated)',
               date = date + ((($2::int % 40) - 20) * interval '1 day'), pending = not pending,
               tag_ids = array[$3::uuid]
             where id = $1`,
            [victim, i, tag],
          );
          if (i % 5 === 0) {
            // Several changes in one transaction, too.
            await writer.query("begin");
            await writer.query(`update transactions set amount = amount + 1 where id = $1`, [
              expected[(i * 11) % expected.length].id,
            ]);
            await writer.query(`update transactions set date = date - 3 where id = $1`, [
              expected[(i * 11) % expected.length].id,
            ]);
            await writer.query("commit");
          }
          writes++;
        }
      })();
      try {
        let cursor = page1.nextCursor;
        const rest: ListResult[] = [];
        while (cursor) {
          await new Promise((r) => setTimeout(r, 5));
          const p = await list({ filter, limit: 20, cursor });
          rest.push(p);
          cursor = p.nextCursor;
        }
        stop = true;
        await work;
        const got = stateOf([page1, ...rest]);
        expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
        expect(got).toEqual(expected);
        expect(writes).toBeGreaterThan(3);
      } finally {
        stop = true;
        await work.catch(() => undefined);
        await writer.end();
      }
    }
  });
});

describe("transaction version retention", () => {
  it("purges versions replaced longer ago than the cursor lifetime, and only those", async () => {
    const a = await accountWith(3);
    for (const id of a.ids) await query(em(), `update transactions set amount = amount + 1 where id = ?`, [id]);
    await query(em(), `update transaction_versions set superseded_at = now() - interval '26 hours' where id = ?`, [
      a.ids[0],
    ]);
    const count = async () =>
      (
        await query<{ n: number }>(
          em(),
          `select count(*)::int as n from transaction_versions where id = any(?::uuid[])`,
          [`{${a.ids.join(",")}}`],
        )
      )[0].n;
    expect(await count()).toBe(3);
    expect(await purgeTransactionVersions(em())).toBeGreaterThanOrEqual(1);
    expect(await count()).toBe(2);
    expect(await purgeTransactionVersions(em(), 0)).toBeGreaterThanOrEqual(2);
    expect(await count()).toBe(0);
  });
});
