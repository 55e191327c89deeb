import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s.close();
});

describe("users over REST", () => {
  it("creates, reads, updates and deletes a user", async () => {
    const headers = { "x-api-key": s.adminKey };
    const created = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers,
      payload: { name: "Ann", email: "ann@example.com" },
    });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ name: "Ann", email: "ann@example.com" });
    expect(user.short_id).toMatch(/^[0-9A-Za-z]{8}$/);

    const byShort = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.short_id}`, headers });
    expect(byShort.json().id).toBe(user.id);
    const byUuid = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.id}`, headers });
    expect(byUuid.json().short_id).toBe(user.short_id);

    const patched = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/users/${user.short_id}`,
      headers,
      payload: { email: null },
    });
    expect(patched.json().email).toBeNull();

    const del = await s.rest.inject({ method: "DELETE", url: `/api/v1/users/${user.id}`, headers });
    expect(del.statusCode).toBe(204);
    const gone = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.id}`, headers });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: { code: "NOT_FOUND", message: "User not found" } });
  });
});

describe("users over REST: lists, conflicts and bad input", () => {
  it("GET /api/v1/users lists every user with null for a missing email, readable with a read_only key", async () => {
    const a = (
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/users",
        headers: key(s.adminKey),
        payload: { name: "Listed A" },
      })
    ).json();
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(s.readKey) });
    expect(res.statusCode).toBe(200);
    const found = res.json().users.find((u: { id: string }) => u.id === a.id);
    expect(found).toEqual({
      id: a.id,
      short_id: a.short_id,
      name: "Listed A",
      email: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it("a duplicate email → 409 CONFLICT", async () => {
    const headers = key(s.adminKey);
    await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers,
      payload: { name: "B1", email: "b@example.com" },
    });
    expectEnvelope(
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/users",
        headers,
        payload: { name: "B2", email: "B@example.com" },
      }),
      "CONFLICT",
    );
    const c = (await s.rest.inject({ method: "POST", url: "/api/v1/users", headers, payload: { name: "C" } })).json();
    expectEnvelope(
      await s.rest.inject({
        method: "PATCH",
        url: `/api/v1/users/${c.id}`,
        headers,
        payload: { email: "b@example.com" },
      }),
      "CONFLICT",
    );
  });

  it("deleting a user who owns an API key → 409 CONFLICT", async () => {
    const headers = key(s.adminKey);
    const u = (
      await s.rest.inject({ method: "POST", url: "/api/v1/users", headers, payload: { name: "Owner" } })
    ).json();
    await s.rest.inject({
      method: "POST",
      url: "/api/v1/api-keys",
      headers,
      payload: { name: "owned", scope: "read_only", user_id: u.short_id },
    });
    expectEnvelope(await s.rest.inject({ method: "DELETE", url: `/api/v1/users/${u.short_id}`, headers }), "CONFLICT");
    expect((await s.rest.inject({ method: "GET", url: `/api/v1/users/${u.id}`, headers })).statusCode).toBe(200);
  });

  it("an invalid email → 400 VALIDATION_ERROR", async () => {
    expectEnvelope(
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/users",
        headers: key(s.adminKey),
        payload: { name: "D", email: "nope" },
      }),
      "VALIDATION_ERROR",
    );
  });

  it.each([
    ["name is a number", "name", { name: 1 }],
    ["name is empty", "name", { name: "" }],
    ["email is a boolean", "email", { email: true }],
    ["an unknown field", "id", { id: "x" }],
  ])("PATCH with wrong types (%s) → 400 INVALID_PARAMETER naming %s", async (_what, param, payload) => {
    const u = (
      await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(s.adminKey), payload: { name: "E" } })
    ).json();
    const err = expectEnvelope(
      await s.rest.inject({ method: "PATCH", url: `/api/v1/users/${u.id}`, headers: key(s.adminKey), payload }),
      "INVALID_PARAMETER",
    );
    expect(err.message).toContain(param);
  });

  it.each([
    "zzzzzzzz",
    "abc",
    "00000000-0000-0000-0000-000000000000",
    "%27%20OR%201%3D1--",
    "x".repeat(300),
    "%E2%98%83",
    "%E0%A4%A",
    "%",
  ])("GET, PATCH and DELETE /api/v1/users/%s → 404 NOT_FOUND, never 500", async (id) => {
    const headers = key(s.adminKey);
    expectEnvelope(await s.rest.inject({ method: "GET", url: `/api/v1/users/${id}`, headers }), "NOT_FOUND");
    expectEnvelope(
      await s.rest.inject({ method: "PATCH", url: `/api/v1/users/${id}`, headers, payload: { name: "x" } }),
      "NOT_FOUND",
    );
    expectEnvelope(await s.rest.inject({ method: "DELETE", url: `/api/v1/users/${id}`, headers }), "NOT_FOUND");
  });

  it("writes need full_access", async () => {
    expectEnvelope(
      await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(s.readKey), payload: { name: "F" } }),
      "INSUFFICIENT_SCOPE",
    );
  });
});
