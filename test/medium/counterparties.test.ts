import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgArray, query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let admin: ReturnType<typeof withKey>;
let accountId: string;
beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  const em = s.orm.em.fork();
  accountId = (await newAccount(em, (await newUser(em, "Payer")).id)).id;
});
afterAll(async () => {
  await s?.close();
});

let n = 0;
const uniq = (base: string) => `${base} ${++n}`;

async function annotationsFor(entityId: string) {
  return query<{
    action: string;
    entity_type: string;
    transaction_id: string | null;
    details: Record<string, unknown>;
  }>(
    s.orm.em.fork(),
    `select action, entity_type, transaction_id, details from annotations where entity_id = ? order by created_at, id`,
    [entityId],
  );
}

async function counterpartyOf(ids: string[]): Promise<(string | null)[]> {
  const rows = await query<{ id: string; counterparty_id: string | null }>(
    s.orm.em.fork(),
    `select id, counterparty_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.counterparty_id]));
  return ids.map((id) => byId.get(id) ?? null);
}

async function shortIdsOf(ids: string[]): Promise<string[]> {
  const rows = await query<{ id: string; short_id: string }>(
    s.orm.em.fork(),
    `select id, short_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.short_id]));
  return ids.map((id) => byId.get(id)!);
}

describe("CounterpartyService: CRUD", () => {
  it("creates (type defaults to merchant), gets by UUID or short id, and annotates", async () => {
    const c = (await s.core.counterparties.createCounterparty({ name: "  Blue Bottle Coffee " }, admin)).counterparty!;
    expect(c).toMatchObject({ name: "Blue Bottle Coffee", type: "merchant" });
    expect(c.notes).toBeUndefined();
    for (const id of [c.id, c.shortId]) {
      expect((await s.core.counterparties.getCounterparty({ id }, withKey(s.readKey))).counterparty!.id).toBe(c.id);
    }
    expect(await annotationsFor(c.id)).toEqual([
      {
        action: "created",
        entity_type: "counterparty",
        transaction_id: null,
        details: { name: "Blue Bottle Coffee", type: "merchant" },
      },
    ]);
    const p = (
      await s.core.counterparties.createCounterparty(
        { name: uniq("Grandma"), type: "Person", notes: "Birthday gifts" },
        admin,
      )
    ).counterparty!;
    expect(p).toMatchObject({ type: "person", notes: "Birthday gifts" });
  });

  it("names are unique case-insensitively → CONFLICT on create and rename", async () => {
    const name = uniq("Acme Corp");
    const a = (await s.core.counterparties.createCounterparty({ name }, admin)).counterparty!;
    await expectCoreError(s.core.counterparties.createCounterparty({ name: name.toUpperCase() }, admin), "CONFLICT");
    const b = (await s.core.counterparties.createCounterparty({ name: uniq("Other Corp") }, admin)).counterparty!;
    await expectCoreError(
      s.core.counterparties.updateCounterparty({ id: b.id, name: name.toLowerCase() }, admin),
      "CONFLICT",
    );
    // Changing only the case of its own name is allowed.
    const recased = (await s.core.counterparties.updateCounterparty({ id: a.id, name: name.toUpperCase() }, admin))
      .counterparty!;
    expect(recased.name).toBe(name.toUpperCase());
  });

  it('updates name, type and notes ("" clears), annotating only real changes', async () => {
    const c = (await s.core.counterparties.createCounterparty({ name: uniq("City Water"), notes: "old" }, admin))
      .counterparty!;
    const u = (
      await s.core.counterparties.updateCounterparty({ id: c.shortId, type: "organization", notes: "" }, admin)
    ).counterparty!;
    expect(u).toMatchObject({ type: "organization", name: c.name });
    expect(u.notes).toBeUndefined();
    await s.core.counterparties.updateCounterparty({ id: c.id, type: "organization" }, admin);
    const notes = await annotationsFor(c.id);
    expect(notes.map((a) => a.action)).toEqual(["created", "updated"]);
    expect(notes[1].details).toEqual({
      changes: { type: { from: "merchant", to: "organization" }, notes: { from: "old", to: null } },
    });
  });

  it.each([
    ["a blank name", { name: "  " }],
    ["a too long name", { name: "x".repeat(201) }],
    ["an unknown type", { name: "X", type: "robot" }],
    ["too long notes", { name: "X", notes: "n".repeat(2001) }],
  ])("create rejects %s with VALIDATION_ERROR", async (_what, req) => {
    await expectCoreError(s.core.counterparties.createCounterparty(req, admin), "VALIDATION_ERROR");
  });

  it("lists by name with a case-insensitive, literal substring search", async () => {
    const tag = Math.random().toString(36).slice(2, 7);
    await s.core.counterparties.createCounterparty({ name: `Zeta ${tag} Market` }, admin);
    await s.core.counterparties.createCounterparty({ name: `alpha ${tag} 100% Juice` }, admin);
    const all = (await s.core.counterparties.listCounterparties({}, withKey(s.readKey))).counterparties.map(
      (c) => c.name,
    );
    expect(all).toEqual(expect.arrayContaining([`Zeta ${tag} Market`, `alpha ${tag} 100% Juice`]));
    const found = (
      await s.core.counterparties.listCounterparties({ search: tag.toUpperCase() }, admin)
    ).counterparties.map((c) => c.name);
    expect(found.sort()).toEqual([`Zeta ${tag} Market`, `alpha ${tag} 100% Juice`].sort());
    expect(
      (await s.core.counterparties.listCounterparties({ search: "100%" }, admin)).counterparties.map((c) => c.name),
    ).toEqual([`alpha ${tag} 100% Juice`]);
    expect((await s.core.counterparties.listCounterparties({ search: "%" }, admin)).counterparties).toHaveLength(1);
    expect((await s.core.counterparties.listCounterparties({ search: "_" }, admin)).counterparties).toHaveLength(0);
  });

  it("unknown or malformed ids → NOT_FOUND; writes need full_access", async () => {
    for (const id of ["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "nope", ""]) {
      await expectCoreError(s.core.counterparties.getCounterparty({ id }, admin), "NOT_FOUND");
      await expectCoreError(s.core.counterparties.updateCounterparty({ id, name: "x" }, admin), "NOT_FOUND");
      await expectCoreError(
        s.core.counterparties.assignCounterparty({ id, transactionIds: ["zzzzzzzz"] }, admin),
        "NOT_FOUND",
      );
    }
    const reader = withKey(s.readKey);
    await expectCoreError(s.core.counterparties.createCounterparty({ name: "x" }, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(
      s.core.counterparties.updateCounterparty({ id: "zzzzzzzz", name: "x" }, reader),
      "INSUFFICIENT_SCOPE",
    );
    await expectCoreError(
      s.core.counterparties.assignCounterparty({ id: "zzzzzzzz", transactionIds: ["x"] }, reader),
      "INSUFFICIENT_SCOPE",
    );
    await expectCoreError(
      s.core.counterparties.unassignCounterparty({ id: "zzzzzzzz", transactionIds: ["x"] }, reader),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("CounterpartyService: assigning transactions", () => {
  it("assigns by UUID or short id, counts only real changes, and annotates each transaction", async () => {
    const landlord = (await s.core.counterparties.createCounterparty({ name: uniq("Landlord"), type: "person" }, admin))
      .counterparty!;
    const previous = (await s.core.counterparties.createCounterparty({ name: uniq("Old agency") }, admin))
      .counterparty!;
    const ids = await newTransactions(s.orm.em.fork(), accountId, [{}, {}, {}]);
    const shorts = await shortIdsOf(ids);
    await query(s.orm.em.fork(), `update transactions set counterparty_id = ? where id = ?`, [previous.id, ids[2]]);

    const r = await s.core.counterparties.assignCounterparty(
      { id: landlord.shortId, transactionIds: [ids[0], shorts[1], shorts[2], ids[0]] },
      admin,
    );
    expect(r.updated).toBe(3n);
    expect(await counterpartyOf(ids)).toEqual([landlord.id, landlord.id, landlord.id]);
    expect(await annotationsFor(ids[0])).toEqual([
      {
        action: "counterparty_assigned",
        entity_type: "transaction",
        transaction_id: ids[0],
        details: {
          counterparty_id: landlord.shortId,
          counterparty_name: landlord.name,
          previous_counterparty_id: null,
        },
      },
    ]);
    expect((await annotationsFor(ids[2]))[0].details.previous_counterparty_id).toBe(previous.shortId);

    // Again: nothing changes, nothing is annotated.
    expect(
      (await s.core.counterparties.assignCounterparty({ id: landlord.id, transactionIds: ids }, admin)).updated,
    ).toBe(0n);
    expect(await annotationsFor(ids[1])).toHaveLength(1);
  });

  it("is all or nothing: one unknown, malformed or deleted id → NOT_FOUND and nothing changes", async () => {
    const cp = (await s.core.counterparties.createCounterparty({ name: uniq("Gym") }, admin)).counterparty!;
    const [good, deleted] = await newTransactions(s.orm.em.fork(), accountId, [{}, {}]);
    await query(s.orm.em.fork(), `update transactions set deleted_at = now() where id = ?`, [deleted]);
    for (const bad of ["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "not-an-id", deleted]) {
      const f = await expectCoreError(
        s.core.counterparties.assignCounterparty({ id: cp.id, transactionIds: [good, bad] }, admin),
        "NOT_FOUND",
      );
      expect(f.message).toContain(JSON.stringify(bad));
    }
    expect(await counterpartyOf([good])).toEqual([null]);
    expect(await annotationsFor(good)).toEqual([]);
  });

  it("rejects an empty list or more than 500 ids with VALIDATION_ERROR", async () => {
    const cp = (await s.core.counterparties.createCounterparty({ name: uniq("Bulk") }, admin)).counterparty!;
    await expectCoreError(
      s.core.counterparties.assignCounterparty({ id: cp.id, transactionIds: [] }, admin),
      "VALIDATION_ERROR",
    );
    const many = Array.from({ length: 501 }, (_, i) => `${i}`.padStart(8, "0"));
    await expectCoreError(
      s.core.counterparties.assignCounterparty({ id: cp.id, transactionIds: many }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.counterparties.unassignCounterparty({ id: cp.id, transactionIds: [] }, admin),
      "VALIDATION_ERROR",
    );
  });

  it("unassigns only where this is the counterparty, annotating each change", async () => {
    const mine = (await s.core.counterparties.createCounterparty({ name: uniq("Mine") }, admin)).counterparty!;
    const theirs = (await s.core.counterparties.createCounterparty({ name: uniq("Theirs") }, admin)).counterparty!;
    const ids = await newTransactions(s.orm.em.fork(), accountId, [{}, {}, {}]);
    await s.core.counterparties.assignCounterparty({ id: mine.id, transactionIds: [ids[0], ids[1]] }, admin);
    await s.core.counterparties.assignCounterparty({ id: theirs.id, transactionIds: [ids[2]] }, admin);

    const r = await s.core.counterparties.unassignCounterparty({ id: mine.shortId, transactionIds: ids }, admin);
    expect(r.updated).toBe(2n);
    expect(await counterpartyOf(ids)).toEqual([null, null, theirs.id]);
    expect((await annotationsFor(ids[0])).map((a) => [a.action, a.details.counterparty_id])).toEqual([
      ["counterparty_assigned", mine.shortId],
      ["counterparty_unassigned", mine.shortId],
    ]);
    expect((await annotationsFor(ids[2])).map((a) => a.action)).toEqual(["counterparty_assigned"]);
    await expectCoreError(
      s.core.counterparties.unassignCounterparty({ id: mine.id, transactionIds: [ids[0], "zzzzzzzz"] }, admin),
      "NOT_FOUND",
    );
  });
});
