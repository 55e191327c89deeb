import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { createAccount, findAccountIdByProviderId } from "../../services/ledger/accounts/accounts.js";
import type { Actor } from "../../services/ledger/actor.js";
import { categoryIdsBySlug } from "../../services/ledger/categories/categories.js";
import { createCounterparty, findCounterpartyIdByName } from "../../services/ledger/counterparties/counterparties.js";
import { createTag, findTagIdBySlug } from "../../services/ledger/tags/tags.js";
import { addComment, findCommentId } from "../../services/ledger/transactions/comments.js";
import { findImportedTransactionIds } from "../../services/ledger/transactions/insert.js";
import { deleteTransaction } from "../../services/ledger/transactions/lifecycle.js";
import { createUser, findUserIdByEmail } from "../../services/users/users.js";
import { createTestDatabase } from "../helpers/db.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";

// The lookups an importer (such as `coffer demo`) uses to stay idempotent: each finds a row by
// the key it is unique on, or answers null; none of them writes.

const ACTOR: Actor = { type: "system", id: null, keyId: null, name: "natural keys test" };
let orm: Orm;
let userId: string;
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  userId = (await newUser(orm.em.fork(), "Owner")).id;
});
afterAll(async () => {
  await orm?.close();
});

const em = () => orm.em.fork();

describe("findUserIdByEmail", () => {
  it("finds a user by email, in any case, and answers null for an unknown one", async () => {
    const u = await createUser(em(), { name: "Mia", email: "Mia@Example.org" });
    expect(await findUserIdByEmail(em(), "mia@example.ORG")).toBe(u.id);
    expect(await findUserIdByEmail(em(), " mia@example.org ")).toBe(u.id);
    expect(await findUserIdByEmail(em(), "nobody@example.org")).toBeNull();
  });

  it.each(["", "not an email"])("should not look up %j", async (email) => {
    await expect(findUserIdByEmail(em(), email)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});

describe("accounts by provider account id", () => {
  it("creates a manual account with an importer's key, finds it by that key, and records it", async () => {
    const id = await createAccount(em(), ACTOR, {
      userId,
      name: "Imported",
      type: "depository",
      isoCurrencyCode: "EUR",
      providerAccountId: " bank:1 ",
    });
    expect(await findAccountIdByProviderId(em(), { provider: "manual", providerAccountId: "bank:1" })).toBe(id);
    expect(await findAccountIdByProviderId(em(), { provider: "manual", providerAccountId: "bank:2" })).toBeNull();
    expect(await findAccountIdByProviderId(em(), { provider: "plaid", providerAccountId: "bank:1" })).toBeNull();
    const [a] = await query<{ action: string; actor_name: string; details: Record<string, unknown> }>(
      em(),
      `select action, actor_name, details from annotations where entity_id = ?`,
      [id],
    );
    expect(a).toMatchObject({
      action: "created",
      actor_name: "natural keys test",
      details: { provider_account_id: "bank:1" },
    });
  });

  it("should not create a second account with the same provider account id", async () => {
    await createAccount(em(), ACTOR, {
      userId,
      name: "First",
      type: "other",
      isoCurrencyCode: "USD",
      providerAccountId: "dup",
    });
    await expect(
      createAccount(em(), ACTOR, {
        userId,
        name: "Second",
        type: "other",
        isoCurrencyCode: "USD",
        providerAccountId: "dup",
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("should not accept control characters or an overlong provider account id", async () => {
    for (const providerAccountId of ["a\u0000b", "x".repeat(201)]) {
      await expect(
        createAccount(em(), ACTOR, { userId, name: "Bad", type: "other", isoCurrencyCode: "USD", providerAccountId }),
      ).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
      });
    }
    await expect(findAccountIdByProviderId(em(), { provider: "manual", providerAccountId: "" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });
});

describe("tags, counterparties and categories by their keys", () => {
  it("finds a tag by slug (typed in any case)", async () => {
    const id = await createTag(em(), ACTOR, { slug: "holiday", displayName: "Holiday" });
    expect(await findTagIdBySlug(em(), "Holiday")).toBe(id);
    expect(await findTagIdBySlug(em(), "workday")).toBeNull();
    await expect(findTagIdBySlug(em(), "no spaces")).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("finds a counterparty by name, case-insensitively like its unique index", async () => {
    const id = await createCounterparty(em(), ACTOR, { name: "Acme Corp", type: "organization" });
    expect(await findCounterpartyIdByName(em(), "ACME corp")).toBe(id);
    expect(await findCounterpartyIdByName(em(), "Acme")).toBeNull();
    await expect(findCounterpartyIdByName(em(), " ")).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("maps seeded category slugs to ids and leaves out the ones that name nothing", async () => {
    const ids = await categoryIdsBySlug(em(), ["food_and_drink_coffee", "FOOD_AND_DRINK_COFFEE", "no_such_category"]);
    expect([...ids.entries()]).toEqual([["food_and_drink_coffee", await categoryId(em(), "food_and_drink_coffee")]]);
    expect((await categoryIdsBySlug(em(), [])).size).toBe(0);
    await expect(categoryIdsBySlug(em(), ["bad slug"])).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});

describe("imported transactions and their comments", () => {
  it("finds live transactions by provider transaction id, per account and provider", async () => {
    const account = (await newAccount(em(), userId)).id;
    const other = (await newAccount(em(), userId)).id;
    const [a, b] = await newTransactions(em(), account, [
      { providerTransactionId: "p-1" },
      { providerTransactionId: "p-2" },
    ]);
    await newTransactions(em(), other, [{ providerTransactionId: "p-3" }]);
    await deleteTransaction(em(), ACTOR, b);
    const found = await findImportedTransactionIds(em(), {
      accountId: account,
      provider: "csv",
      providerTransactionIds: ["p-1", "p-2", "p-3"],
    });
    expect([...found.entries()]).toEqual([["p-1", a]]);
    expect(
      (
        await findImportedTransactionIds(em(), {
          accountId: account,
          provider: "plaid",
          providerTransactionIds: ["p-1"],
        })
      ).size,
    ).toBe(0);
    await expect(
      findImportedTransactionIds(em(), { accountId: "nope", provider: "csv", providerTransactionIds: ["p-1"] }),
    ).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });

  it("finds a comment by its exact body on a transaction named by UUID or short id", async () => {
    const account = (await newAccount(em(), userId)).id;
    const [t] = await newTransactions(em(), account, [{}]);
    await addComment(em(), ACTOR, t, "Paid back by Mia.");
    const [row] = await query<{ id: string; short_id: string }>(
      em(),
      `select c.id, t.short_id from comments c join transactions t on t.id = c.transaction_id where t.id = ?`,
      [t],
    );
    expect(await findCommentId(em(), t, " Paid back by Mia. ")).toBe(row.id);
    expect(await findCommentId(em(), row.short_id, "Paid back by Mia.")).toBe(row.id);
    expect(await findCommentId(em(), t, "paid back by mia.")).toBeNull();
    expect(await findCommentId(em(), "not-an-id", "Paid back by Mia.")).toBeNull();
    await expect(findCommentId(em(), t, "  ")).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
