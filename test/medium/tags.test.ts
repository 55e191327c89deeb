import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgArray, query } from "../../services/db/sql.js";
import { displayNameFromSlug, parseColor } from "../../services/ledger/tags/tags.js";
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
  accountId = (await newAccount(em, (await newUser(em, "Tagger")).id)).id;
});
afterAll(async () => {
  await s?.close();
});

let n = 0;
const uniq = (base: string) => `${base}_${++n}`;

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

async function tagIdsOf(txId: string): Promise<string[]> {
  const [row] = await query<{ tag_ids: string[] }>(s.orm.em.fork(), `select tag_ids from transactions where id = ?`, [
    txId,
  ]);
  return row.tag_ids;
}

describe("tag helpers", () => {
  it.each([
    ["#1F77B4", "#1f77b4"],
    ["  #abcdef ", "#abcdef"],
    ["", null],
  ])("parseColor(%j) → %j", (raw, color) => {
    expect(parseColor(raw)).toBe(color);
  });

  it.each(["red", "#fff", "1f77b4", "#12345g", "#1234567"])("parseColor rejects %j", (raw) => {
    expect(() => parseColor(raw)).toThrow(/hex color/);
  });

  it("names a tag from its slug", () => {
    expect(displayNameFromSlug("tax_deductible")).toBe("Tax deductible");
  });
});

describe("TagService", () => {
  it("creates with slug only, display name only, or both; normalises the color; annotates", async () => {
    const a = (await s.core.tags.createTag({ slug: "tax_deductible" }, admin)).tag!;
    expect(a).toMatchObject({ slug: "tax_deductible", displayName: "Tax deductible" });
    expect(a.color).toBeUndefined();
    const b = (await s.core.tags.createTag({ displayName: "Summer Vacation 2026", color: "#FF8800" }, admin)).tag!;
    expect(b).toMatchObject({ slug: "summer_vacation_2026", displayName: "Summer Vacation 2026", color: "#ff8800" });
    const c = (await s.core.tags.createTag({ slug: " Reimbursable ", displayName: "To reimburse" }, admin)).tag!;
    expect(c).toMatchObject({ slug: "reimbursable", displayName: "To reimburse" });
    expect(c.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(await annotationsFor(b.id)).toEqual([
      {
        action: "created",
        entity_type: "tag",
        transaction_id: null,
        details: { slug: "summer_vacation_2026", display_name: "Summer Vacation 2026", color: "#ff8800" },
      },
    ]);
  });

  it("lists tags sorted by slug, readable with a read_only key", async () => {
    await s.core.tags.createTag({ slug: uniq("zulu") }, admin);
    await s.core.tags.createTag({ slug: uniq("alpha") }, admin);
    const slugs = (await s.core.tags.listTags({}, withKey(s.readKey))).tags.map((t) => t.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs.length).toBeGreaterThanOrEqual(2);
  });

  it("gets a tag by UUID, short id or slug, including an 8-letter slug", async () => {
    const t = (await s.core.tags.createTag({ slug: "vacation" }, admin)).tag!;
    for (const id of [t.id, t.shortId, "vacation"]) {
      expect((await s.core.tags.getTag({ id }, withKey(s.readKey))).tag!.id).toBe(t.id);
    }
  });

  it.each(["no_such_tag", "zzzzzzzz", "00000000-0000-0000-0000-000000000000", "Bad Slug", ""])(
    "an unknown or malformed id %j → NOT_FOUND",
    async (id) => {
      await expectCoreError(s.core.tags.getTag({ id }, admin), "NOT_FOUND");
      await expectCoreError(s.core.tags.updateTag({ id, displayName: "x" }, admin), "NOT_FOUND");
      await expectCoreError(s.core.tags.deleteTag({ id }, admin), "NOT_FOUND");
    },
  );

  it("a duplicate slug → SLUG_CONFLICT, on create and on update", async () => {
    const slug = uniq("dup");
    await s.core.tags.createTag({ slug }, admin);
    await expectCoreError(s.core.tags.createTag({ slug }, admin), "SLUG_CONFLICT");
    await expectCoreError(s.core.tags.createTag({ displayName: slug.toUpperCase() }, admin), "SLUG_CONFLICT");
    const other = (await s.core.tags.createTag({ slug: uniq("other") }, admin)).tag!;
    await expectCoreError(s.core.tags.updateTag({ id: other.id, slug }, admin), "SLUG_CONFLICT");
  });

  it.each([
    ["neither slug nor display name", {}],
    ["blank slug and name", { slug: " ", displayName: " " }],
    ["a bad slug", { slug: "a-b" }],
    ["a display name with no usable slug", { displayName: "???" }],
    ["a bad color", { slug: "colorful", color: "blue" }],
  ])("create rejects %s with VALIDATION_ERROR", async (_what, req) => {
    await expectCoreError(s.core.tags.createTag(req, admin), "VALIDATION_ERROR");
  });

  it('updates slug, display name and color ("" clears it), annotating only real changes', async () => {
    const t = (await s.core.tags.createTag({ slug: uniq("work"), color: "#000000" }, admin)).tag!;
    const u = (
      await s.core.tags.updateTag(
        { id: t.slug, slug: `${t.slug}_trip`, displayName: "Work trip", color: "#ABCDEF" },
        admin,
      )
    ).tag!;
    expect(u).toMatchObject({ id: t.id, slug: `${t.slug}_trip`, displayName: "Work trip", color: "#abcdef" });
    const cleared = (await s.core.tags.updateTag({ id: t.id, color: "" }, admin)).tag!;
    expect(cleared.color).toBeUndefined();
    await s.core.tags.updateTag({ id: t.id, displayName: "Work trip" }, admin);
    const notes = await annotationsFor(t.id);
    expect(notes.map((a) => a.action)).toEqual(["created", "updated", "updated"]);
    expect(notes[2].details).toEqual({ slug: `${t.slug}_trip`, changes: { color: { from: "#abcdef", to: null } } });
    await expectCoreError(s.core.tags.updateTag({ id: t.id, color: "#12" }, admin), "VALIDATION_ERROR");
    await expectCoreError(s.core.tags.updateTag({ id: t.id, slug: "" }, admin), "VALIDATION_ERROR");
    await expectCoreError(s.core.tags.updateTag({ id: t.id, displayName: "" }, admin), "VALIDATION_ERROR");
  });

  it("deleting a tag takes it off every transaction, annotating each, in one transaction", async () => {
    const doomed = (await s.core.tags.createTag({ slug: uniq("doomed") }, admin)).tag!;
    const keep = (await s.core.tags.createTag({ slug: uniq("keep") }, admin)).tag!;
    const [t1, t2, t3] = await newTransactions(s.orm.em.fork(), accountId, [{}, {}, {}]);
    const em = s.orm.em.fork();
    await query(em, `update transactions set tag_ids = ?::uuid[] where id = any(?::uuid[])`, [
      pgArray([doomed.id, keep.id]),
      pgArray([t1, t2]),
    ]);
    await query(em, `update transactions set tag_ids = ?::uuid[] where id = ?`, [pgArray([keep.id]), t3]);

    await s.core.tags.deleteTag({ id: doomed.shortId }, admin);
    expect(await tagIdsOf(t1)).toEqual([keep.id]);
    expect(await tagIdsOf(t2)).toEqual([keep.id]);
    expect(await tagIdsOf(t3)).toEqual([keep.id]);
    for (const id of [t1, t2]) {
      expect(await annotationsFor(id)).toEqual([
        {
          action: "tag_removed",
          entity_type: "transaction",
          transaction_id: id,
          details: { slug: doomed.slug, reason: "tag_deleted" },
        },
      ]);
    }
    expect(await annotationsFor(t3)).toEqual([]);
    expect((await annotationsFor(doomed.id)).at(-1)).toMatchObject({
      action: "deleted",
      details: { slug: doomed.slug, transactions_updated: 2 },
    });
    await expectCoreError(s.core.tags.getTag({ id: doomed.id }, admin), "NOT_FOUND");
  });

  it("writes need a full_access key", async () => {
    const reader = withKey(s.readKey);
    await expectCoreError(s.core.tags.createTag({ slug: "nope" }, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.tags.updateTag({ id: "vacation", displayName: "x" }, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.tags.deleteTag({ id: "vacation" }, reader), "INSUFFICIENT_SCOPE");
  });
});
