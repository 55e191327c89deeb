import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../../services/auth/key-hash.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const KEY_FIELDS = [
  "actor_type",
  "created_at",
  "id",
  "key_prefix",
  "last_used_at",
  "name",
  "revoked_at",
  "scope",
  "short_id",
  "user_id",
];

describe("API keys over REST", () => {
  it("POST /api/v1/api-keys → 201 with the plaintext key, once", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/api-keys",
      headers: key(s.adminKey),
      payload: { name: "ci", scope: "read_only" },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([...KEY_FIELDS, "key"].sort());
    expect(body).toMatchObject({
      name: "ci",
      scope: "read_only",
      actor_type: "user",
      user_id: null,
      last_used_at: null,
      revoked_at: null,
    });
    expect(body.key).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    expect(body.key_prefix).toBe(body.key.slice(0, 7));
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.short_id).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(body.created_at).toMatch(ISO);

    const me = await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: key(body.key) });
    expect(me.statusCode).toBe(200);
    expect(Object.keys(me.json()).sort()).toEqual(KEY_FIELDS);
    expect(me.json()).toMatchObject({ id: body.id, short_id: body.short_id, name: "ci", scope: "read_only" });
    expect(me.json().last_used_at).toMatch(ISO);
    expect(me.body).not.toContain(body.key);
  });

  it("GET /api/v1/api-keys lists keys with no plaintext and no hash", async () => {
    const created = (
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/api-keys",
        headers: key(s.adminKey),
        payload: { name: "listed", scope: "full_access" },
      })
    ).json();
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/api-keys", headers: key(s.adminKey) });
    expect(res.statusCode).toBe(200);
    const { api_keys } = res.json();
    expect(api_keys.map((k: { name: string }) => k.name)).toEqual(
      expect.arrayContaining(["test admin", "test reader", "listed"]),
    );
    for (const k of api_keys) expect(Object.keys(k).sort()).toEqual(KEY_FIELDS);
    for (const secret of [created.key, s.adminKey, s.readKey]) {
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toContain(hashSecret(secret));
    }
  });

  it("GET /api/v1/api-keys needs full_access", async () => {
    expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/api-keys", headers: key(s.readKey) }),
      "INSUFFICIENT_SCOPE",
    );
  });

  it("DELETE /api/v1/api-keys/{id} revokes; the key then gets 401 REVOKED_API_KEY", async () => {
    const created = (
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/api-keys",
        headers: key(s.adminKey),
        payload: { name: "temp", scope: "full_access" },
      })
    ).json();
    expect((await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(created.key) })).statusCode).toBe(
      200,
    );
    const res = await s.rest.inject({
      method: "DELETE",
      url: `/api/v1/api-keys/${created.short_id}`,
      headers: key(s.adminKey),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: created.id, name: "temp" });
    expect(res.json().revoked_at).toMatch(ISO);
    expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: key(created.key) }),
      "REVOKED_API_KEY",
    );
    expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(created.key) }),
      "REVOKED_API_KEY",
    );
    // By UUID, again: still revoked, same timestamp.
    const again = await s.rest.inject({
      method: "DELETE",
      url: `/api/v1/api-keys/${created.id}`,
      headers: key(s.adminKey),
    });
    expect(again.json().revoked_at).toBe(res.json().revoked_at);
  });

  it.each(["zzzzzzzz", "nope", "00000000-0000-0000-0000-000000000000", "%27%20OR%201%3D1"])(
    "DELETE /api/v1/api-keys/%s → 404 NOT_FOUND",
    async (id) => {
      expectEnvelope(
        await s.rest.inject({ method: "DELETE", url: `/api/v1/api-keys/${id}`, headers: key(s.adminKey) }),
        "NOT_FOUND",
      );
    },
  );

  it.each([
    ["no name", "name", { scope: "read_only" }],
    ["no scope", "scope", { name: "x" }],
    ["an unknown scope", "scope", { name: "x", scope: "root" }],
    ["a numeric name", "name", { name: 7, scope: "read_only" }],
    ["an unknown actor type", "actor_type", { name: "x", scope: "read_only", actor_type: "robot" }],
    ["an unknown field", "expires", { name: "x", scope: "read_only", expires: 3 }],
  ])("POST /api/v1/api-keys with %s → 400 INVALID_PARAMETER naming %s", async (_what, param, payload) => {
    const err = expectEnvelope(
      await s.rest.inject({ method: "POST", url: "/api/v1/api-keys", headers: key(s.adminKey), payload }),
      "INVALID_PARAMETER",
    );
    expect(err.message).toContain(param);
  });

  it("POST /api/v1/api-keys with a blank name → 400 VALIDATION_ERROR from the core", async () => {
    expectEnvelope(
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/api-keys",
        headers: key(s.adminKey),
        payload: { name: "   ", scope: "read_only" },
      }),
      "VALIDATION_ERROR",
    );
  });

  it("a key can belong to a user: user_id is the user's short id", async () => {
    const user = (
      await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(s.adminKey), payload: { name: "Kid" } })
    ).json();
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/api-keys",
      headers: key(s.adminKey),
      payload: { name: "kid's", scope: "read_only", user_id: user.id },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user_id).toBe(user.short_id);
    const missing = await s.rest.inject({
      method: "POST",
      url: "/api/v1/api-keys",
      headers: key(s.adminKey),
      payload: { name: "x", scope: "read_only", user_id: "zzzzzzzz" },
    });
    expectEnvelope(missing, "NOT_FOUND");
  });
});
