import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let admin: ReturnType<typeof withKey>;
let ann: { id: string; shortId: string };
let ben: { id: string; shortId: string };
beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  ann = await newUser(s.orm.em.fork(), "Ann");
  ben = await newUser(s.orm.em.fork(), "Ben");
});
afterAll(async () => {
  await s?.close();
});

async function annotationsFor(entityId: string) {
  return query<{ action: string; entity_type: string; actor_name: string; details: Record<string, unknown> }>(
    s.orm.em.fork(),
    `select action, entity_type, actor_name, details from annotations where entity_id = ? order by created_at, id`,
    [entityId],
  );
}

const base = { name: "Cash", type: "other", isoCurrencyCode: "usd" };

describe("AccountService: create", () => {
  it("creates a manual account with an exact balance, owned by a household member, and annotates it", async () => {
    const a = (
      await s.core.accounts.createAccount(
        {
          userId: ann.shortId,
          name: " Joint checking ",
          type: "depository",
          subtype: "checking",
          isoCurrencyCode: "usd",
          mask: "0042",
          officialName: "Everyday Checking",
          balanceCurrent: "12345678901.23",
        },
        admin,
      )
    ).account!;
    expect(a).toMatchObject({
      userId: ann.shortId,
      userName: "Ann",
      provider: "manual",
      name: "Joint checking",
      officialName: "Everyday Checking",
      type: "depository",
      subtype: "checking",
      mask: "0042",
      balanceCurrent: "12345678901.23",
      isoCurrencyCode: "USD",
      hidden: false,
    });
    expect(a.connectionId).toBeUndefined();
    expect(a.balanceAvailable).toBeUndefined();
    expect(a.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(await annotationsFor(a.id)).toEqual([
      {
        action: "created",
        entity_type: "account",
        actor_name: "test admin",
        details: {
          name: "Joint checking",
          type: "depository",
          iso_currency_code: "USD",
          user_id: ann.shortId,
          balance_current: "12345678901.23",
        },
      },
    ]);
  });

  it("accepts a UUID owner and leaves optional fields unset", async () => {
    const a = (await s.core.accounts.createAccount({ ...base, userId: ben.id }, admin)).account!;
    expect(a).toMatchObject({ userId: ben.shortId, type: "other", isoCurrencyCode: "USD" });
    expect([a.subtype, a.mask, a.officialName, a.balanceCurrent]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it.each([
    ["no user", { ...base, userId: "" }],
    ["a blank name", { ...base, userId: "x", name: "  " }],
    ["an unknown type", { ...base, userId: "x", type: "crypto" }],
    ["a bad currency", { ...base, userId: "x", isoCurrencyCode: "dollars" }],
    ["a bad mask", { ...base, userId: "x", mask: "12-34" }],
    ["a float-looking balance", { ...base, userId: "x", balanceCurrent: "1.005" }],
    ["a non-number balance", { ...base, userId: "x", balanceCurrent: "lots" }],
    ["a balance beyond NUMERIC(14,2)", { ...base, userId: "x", balanceCurrent: "1234567890123.00" }],
    ["an exponent balance", { ...base, userId: "x", balanceCurrent: "1e5" }],
    ["a too long name", { ...base, userId: "x", name: "n".repeat(201) }],
  ])("rejects %s with VALIDATION_ERROR before looking anything up", async (_what, req) => {
    await expectCoreError(s.core.accounts.createAccount(req, admin), "VALIDATION_ERROR");
  });

  it.each(["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "not an id"])(
    "an unknown owner %j → NOT_FOUND",
    async (userId) => {
      await expectCoreError(s.core.accounts.createAccount({ ...base, userId }, admin), "NOT_FOUND");
    },
  );

  it("needs a full_access key", async () => {
    await expectCoreError(
      s.core.accounts.createAccount({ ...base, userId: ann.id }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("AccountService: read and update", () => {
  it("gets by UUID or short id; unknown or malformed ids → NOT_FOUND", async () => {
    const a = (await s.core.accounts.createAccount({ ...base, userId: ann.id, name: "Wallet" }, admin)).account!;
    for (const id of [a.id, a.id.toUpperCase(), a.shortId]) {
      expect((await s.core.accounts.getAccount({ id }, withKey(s.readKey))).account!.id).toBe(a.id);
    }
    for (const id of ["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "'; drop table accounts; --", ""]) {
      await expectCoreError(s.core.accounts.getAccount({ id }, admin), "NOT_FOUND");
      await expectCoreError(s.core.accounts.updateAccount({ id, name: "x" }, admin), "NOT_FOUND");
    }
  });

  it("renames, hides and reassigns, annotating what changed and nothing for a no-op", async () => {
    const a = (await s.core.accounts.createAccount({ ...base, userId: ann.id, name: "Old name" }, admin)).account!;
    const u = (
      await s.core.accounts.updateAccount({ id: a.shortId, name: "New name", hidden: true, userId: ben.shortId }, admin)
    ).account!;
    expect(u).toMatchObject({ name: "New name", hidden: true, userId: ben.shortId, userName: "Ben" });
    await s.core.accounts.updateAccount({ id: a.id, name: "New name", hidden: true, userId: ben.id }, admin);
    const notes = await annotationsFor(a.id);
    expect(notes.map((x) => x.action)).toEqual(["created", "updated"]);
    expect(notes[1].details).toEqual({
      changes: {
        name: { from: "Old name", to: "New name" },
        hidden: { from: false, to: true },
        user_id: { from: ann.shortId, to: ben.shortId },
      },
    });
  });

  it("update rejects a blank name (VALIDATION_ERROR) and an unknown owner (NOT_FOUND), changing nothing", async () => {
    const a = (await s.core.accounts.createAccount({ ...base, userId: ann.id, name: "Stays" }, admin)).account!;
    await expectCoreError(s.core.accounts.updateAccount({ id: a.id, name: " " }, admin), "VALIDATION_ERROR");
    await expectCoreError(
      s.core.accounts.updateAccount({ id: a.id, name: "Moved", userId: "zzzzzzzz" }, admin),
      "NOT_FOUND",
    );
    expect((await s.core.accounts.getAccount({ id: a.id }, admin)).account!).toMatchObject({
      name: "Stays",
      userId: ann.shortId,
    });
    await expectCoreError(
      s.core.accounts.updateAccount({ id: a.id, hidden: true }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });

  it("lists accounts by name, hidden ones only on request, optionally for one member", async () => {
    const owner = await newUser(s.orm.em.fork(), "Lister");
    const visible = (await s.core.accounts.createAccount({ ...base, userId: owner.id, name: "B visible" }, admin))
      .account!;
    const hidden = (await s.core.accounts.createAccount({ ...base, userId: owner.id, name: "A hidden" }, admin))
      .account!;
    await s.core.accounts.updateAccount({ id: hidden.id, hidden: true }, admin);
    const reader = withKey(s.readKey);

    const mine = (await s.core.accounts.listAccounts({ userId: owner.shortId }, reader)).accounts;
    expect(mine.map((a) => a.id)).toEqual([visible.id]);
    const all = (await s.core.accounts.listAccounts({ userId: owner.id, includeHidden: true }, reader)).accounts;
    expect(all.map((a) => a.name)).toEqual(["A hidden", "B visible"]);

    const everyone = (await s.core.accounts.listAccounts({}, reader)).accounts;
    expect(everyone.map((a) => a.id)).toContain(visible.id);
    expect(everyone.map((a) => a.id)).not.toContain(hidden.id);
    expect(new Set(everyone.map((a) => a.userName))).toEqual(new Set(["Ann", "Ben", "Lister"]));
    const names = everyone.map((a) => a.name);
    expect(names).toEqual([...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));

    await expectCoreError(s.core.accounts.listAccounts({ userId: "zzzzzzzz" }, reader), "NOT_FOUND");
  });
});
