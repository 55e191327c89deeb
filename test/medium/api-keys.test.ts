import { toJsonString } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListApiKeysResponseSchema } from "../../gen/coffer/v1/auth_pb.js";
import { hashSecret } from "../../services/auth/key-hash.js";
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

describe("ApiKeyService", () => {
  it("creates a key and returns its plaintext once", async () => {
    const r = await s.core.apiKeys.createApiKey({ name: "  laptop  ", scope: "read_only" }, admin);
    expect(r.key).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    expect(r.apiKey).toMatchObject({
      name: "laptop",
      scope: "read_only",
      actorType: "user",
      keyPrefix: r.key.slice(0, 7),
    });
    expect(r.apiKey!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.apiKey!.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(r.apiKey!.revokedAt).toBeUndefined();
    // The plaintext is not kept: only its hash is in the database.
    const rows = await s.orm.em.fork().getConnection().execute("select * from api_keys where id = ?", [r.apiKey!.id]);
    expect(JSON.stringify(rows)).not.toContain(r.key);
    expect(rows[0].key_hash).toBe(hashSecret(r.key));
    // And it works.
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(r.key));
    expect(me.apiKey!.id).toBe(r.apiKey!.id);
  });

  it("lists keys without any hash or plaintext", async () => {
    const created = await s.core.apiKeys.createApiKey({ name: "listed", scope: "full_access" }, admin);
    const list = await s.core.apiKeys.listApiKeys({}, admin);
    const names = list.apiKeys.map((k) => k.name);
    expect(names).toEqual(expect.arrayContaining(["test admin", "test reader", "listed"]));
    const json = toJsonString(ListApiKeysResponseSchema, list);
    for (const secret of [created.key, s.adminKey, s.readKey]) {
      expect(json).not.toContain(secret);
      expect(json).not.toContain(hashSecret(secret));
    }
    expect(json).not.toMatch(/hash/i);
    expect(list.apiKeys.find((k) => k.name === "listed")!.keyPrefix).toBe(created.key.slice(0, 7));
  });

  it("listing needs full_access", async () => {
    await expectCoreError(s.core.apiKeys.listApiKeys({}, withKey(s.readKey)), "INSUFFICIENT_SCOPE");
  });

  it("creating needs full_access", async () => {
    await expectCoreError(
      s.core.apiKeys.createApiKey({ name: "x", scope: "read_only" }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });

  it.each([
    ["an empty name", { name: "   ", scope: "read_only" }],
    ["a too long name", { name: "x".repeat(201), scope: "read_only" }],
    ["an unknown scope", { name: "x", scope: "admin" }],
    ["no scope", { name: "x", scope: "" }],
    ["an unknown actor type", { name: "x", scope: "read_only", actorType: "robot" }],
  ])("rejects %s with VALIDATION_ERROR", async (_what, req) => {
    await expectCoreError(s.core.apiKeys.createApiKey(req, admin), "VALIDATION_ERROR");
  });

  it("links a key to a user by short id and presents the user's short id", async () => {
    const user = (await s.core.users.createUser({ name: "Key Owner" }, admin)).user!;
    const r = await s.core.apiKeys.createApiKey(
      { name: "owned", scope: "read_only", userId: user.id, actorType: "agent" },
      admin,
    );
    expect(r.apiKey).toMatchObject({ userId: user.shortId, actorType: "agent" });
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(r.key));
    expect(me.apiKey!.userId).toBe(user.shortId);
    // GetCurrentKey (one SQL statement) presents the key exactly as ListApiKeys (the ORM) does.
    const listed = (await s.core.apiKeys.listApiKeys({}, admin)).apiKeys.find((k) => k.id === r.apiKey!.id);
    expect(me.apiKey).toEqual(listed);
  });

  it.each(["zzzzzzzz", "not an id", "00000000-0000-0000-0000-000000000000"])(
    "an unknown user id %j is NOT_FOUND",
    async (userId) => {
      await expectCoreError(s.core.apiKeys.createApiKey({ name: "x", scope: "read_only", userId }, admin), "NOT_FOUND");
    },
  );

  it("revokes a key: later calls with it are REVOKED_API_KEY, revoking again changes nothing", async () => {
    const r = await s.core.apiKeys.createApiKey({ name: "short-lived", scope: "full_access" }, admin);
    await s.core.users.listUsers({}, withKey(r.key));
    const revoked = await s.core.apiKeys.revokeApiKey({ id: r.apiKey!.shortId }, admin);
    expect(revoked.apiKey!.revokedAt).toBeDefined();
    await expectCoreError(s.core.users.listUsers({}, withKey(r.key)), "REVOKED_API_KEY");
    await expectCoreError(s.core.apiKeys.getCurrentKey({}, withKey(r.key)), "REVOKED_API_KEY");
    const again = await s.core.apiKeys.revokeApiKey({ id: r.apiKey!.id }, admin);
    expect(timestampDate(again.apiKey!.revokedAt!)).toEqual(timestampDate(revoked.apiKey!.revokedAt!));
    const listed = (await s.core.apiKeys.listApiKeys({}, admin)).apiKeys.find((k) => k.id === r.apiKey!.id);
    expect(listed!.revokedAt).toBeDefined();
  });

  it("a key may revoke itself", async () => {
    const r = await s.core.apiKeys.createApiKey({ name: "self", scope: "full_access" }, admin);
    await s.core.apiKeys.revokeApiKey({ id: r.apiKey!.id }, withKey(r.key));
    await expectCoreError(s.core.apiKeys.getCurrentKey({}, withKey(r.key)), "REVOKED_API_KEY");
  });

  it("revoking needs full_access", async () => {
    const r = await s.core.apiKeys.createApiKey({ name: "kept", scope: "read_only" }, admin);
    await expectCoreError(s.core.apiKeys.revokeApiKey({ id: r.apiKey!.id }, withKey(s.readKey)), "INSUFFICIENT_SCOPE");
    await expect(s.core.apiKeys.getCurrentKey({}, withKey(r.key))).resolves.toBeDefined();
  });

  it.each(["", "abc", "zzzzzzzz", "00000000-0000-0000-0000-000000000000", "' OR 1=1 --", "a".repeat(500)])(
    "revoking an unknown or malformed id %j is NOT_FOUND",
    async (id) => {
      await expectCoreError(s.core.apiKeys.revokeApiKey({ id }, admin), "NOT_FOUND");
    },
  );

  it("the very first call with a key already shows it as used", async () => {
    const r = await s.core.apiKeys.createApiKey({ name: "fresh", scope: "read_only" }, admin);
    expect(r.apiKey!.lastUsedAt).toBeUndefined();
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(r.key));
    expect(me.apiKey!.lastUsedAt).toBeDefined();
  });

  it("GetCurrentKey describes the caller's key and records its use", async () => {
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(s.readKey));
    expect(me.apiKey).toMatchObject({
      name: "test reader",
      scope: "read_only",
      actorType: "user",
      keyPrefix: s.readKey.slice(0, 7),
    });
    expect(me.apiKey!.userId).toBeUndefined();
    expect(me.apiKey!.lastUsedAt).toBeDefined();
    expect(Date.now() - timestampDate(me.apiKey!.lastUsedAt!).getTime()).toBeLessThan(60_000);
  });
});
