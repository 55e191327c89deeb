import { timestampDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let admin: ReturnType<typeof withKey>;
beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
});
afterAll(async () => {
  await s?.close();
});

const unique = () => Math.random().toString(36).slice(2, 10);

describe("UserService (core)", () => {
  it("creates, gets (by short id and UUID), lists, updates and deletes", async () => {
    const email = `ann.${unique()}@example.com`;
    const created = (await s.core.users.createUser({ name: "  Ann  ", email }, admin)).user!;
    expect(created).toMatchObject({ name: "Ann", email });
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(created.createdAt).toBeDefined();

    for (const id of [created.id, created.id.toUpperCase(), created.shortId]) {
      expect((await s.core.users.getUser({ id }, withKey(s.readKey))).user!.id).toBe(created.id);
    }
    const listed = (await s.core.users.listUsers({}, withKey(s.readKey))).users;
    expect(listed.map((u) => u.id)).toContain(created.id);

    const renamed = (await s.core.users.updateUser({ id: created.shortId, name: "Annie" }, admin)).user!;
    expect(renamed).toMatchObject({ name: "Annie", email });
    expect(timestampDate(renamed.updatedAt!).getTime()).toBeGreaterThanOrEqual(
      timestampDate(created.updatedAt!).getTime(),
    );
    const cleared = (await s.core.users.updateUser({ id: created.id, email: "" }, admin)).user!;
    expect(cleared.email).toBeUndefined();
    expect(cleared.name).toBe("Annie");
    const untouched = (await s.core.users.updateUser({ id: created.id }, admin)).user!;
    expect(untouched.name).toBe("Annie");

    await s.core.users.deleteUser({ id: created.shortId }, admin);
    await expectCoreError(s.core.users.getUser({ id: created.id }, admin), "NOT_FOUND");
    await expectCoreError(s.core.users.deleteUser({ id: created.id }, admin), "NOT_FOUND");
  });

  it("lists users in creation order", async () => {
    const a = (await s.core.users.createUser({ name: `first ${unique()}` }, admin)).user!;
    const b = (await s.core.users.createUser({ name: `second ${unique()}` }, admin)).user!;
    const ids = (await s.core.users.listUsers({}, admin)).users.map((u) => u.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
  });

  it.each([
    ["an empty name", { name: "" }],
    ["a blank name", { name: "   " }],
    ["a too long name", { name: "x".repeat(201) }],
    ["a malformed email", { name: "Bob", email: "not-an-email" }],
    ["an email with spaces", { name: "Bob", email: "bob @example.com" }],
  ])("rejects %s with VALIDATION_ERROR", async (_what, req) => {
    await expectCoreError(s.core.users.createUser(req, admin), "VALIDATION_ERROR");
  });

  it("a duplicate email is CONFLICT, also in another case and on update", async () => {
    const email = `dup.${unique()}@example.com`;
    await s.core.users.createUser({ name: "One", email }, admin);
    await expectCoreError(s.core.users.createUser({ name: "Two", email }, admin), "CONFLICT");
    await expectCoreError(s.core.users.createUser({ name: "Two", email: email.toUpperCase() }, admin), "CONFLICT");
    const other = (await s.core.users.createUser({ name: "Three" }, admin)).user!;
    await expectCoreError(s.core.users.updateUser({ id: other.id, email }, admin), "CONFLICT");
    expect((await s.core.users.getUser({ id: other.id }, admin)).user!.email).toBeUndefined();
  });

  it("users without email do not conflict with each other", async () => {
    await s.core.users.createUser({ name: "No mail 1" }, admin);
    await expect(s.core.users.createUser({ name: "No mail 2", email: "" }, admin)).resolves.toBeDefined();
  });

  it("deleting a user who owns an API key is CONFLICT and deletes nothing", async () => {
    const user = (await s.core.users.createUser({ name: "Owner" }, admin)).user!;
    const key = await s.core.apiKeys.createApiKey({ name: "owned", scope: "read_only", userId: user.shortId }, admin);
    await expectCoreError(s.core.users.deleteUser({ id: user.id }, admin), "CONFLICT");
    expect((await s.core.users.getUser({ id: user.id }, admin)).user!.name).toBe("Owner");
    // Revoking the key keeps the row (audit), so the user still owns data.
    await s.core.apiKeys.revokeApiKey({ id: key.apiKey!.id }, admin);
    await expectCoreError(s.core.users.deleteUser({ id: user.id }, admin), "CONFLICT");
  });

  it("writes need full_access, reads do not", async () => {
    const u = (await s.core.users.createUser({ name: "Scoped" }, admin)).user!;
    const read = withKey(s.readKey);
    await expectCoreError(s.core.users.createUser({ name: "x" }, read), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.users.updateUser({ id: u.id, name: "x" }, read), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.users.deleteUser({ id: u.id }, read), "INSUFFICIENT_SCOPE");
    expect((await s.core.users.getUser({ id: u.id }, read)).user!.name).toBe("Scoped");
  });

  const badIds = [
    "",
    "abc",
    "zzzzzzzz",
    "aB3dE9zQx",
    "00000000-0000-0000-0000-000000000000",
    "0f8fad5b-d9cb-469f-a165-70867728950",
    "' OR 1=1 --",
    "1; drop table users",
    "%00",
    "é".repeat(8),
    "x".repeat(10_000),
  ];
  it.each(badIds)("get/update/delete with the unknown or malformed id %j → NOT_FOUND, never INTERNAL", async (id) => {
    await expectCoreError(s.core.users.getUser({ id }, admin), "NOT_FOUND");
    await expectCoreError(s.core.users.updateUser({ id, name: "x" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.users.deleteUser({ id }, admin), "NOT_FOUND");
  });
});
