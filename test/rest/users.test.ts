import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    const created = await s.rest.inject({ method: "POST", url: "/api/v1/users", headers, payload: { name: "Ann", email: "ann@example.com" } });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ name: "Ann", email: "ann@example.com" });
    expect(user.short_id).toMatch(/^[0-9A-Za-z]{8}$/);

    const byShort = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.short_id}`, headers });
    expect(byShort.json().id).toBe(user.id);
    const byUuid = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.id}`, headers });
    expect(byUuid.json().short_id).toBe(user.short_id);

    const patched = await s.rest.inject({ method: "PATCH", url: `/api/v1/users/${user.short_id}`, headers, payload: { email: null } });
    expect(patched.json().email).toBeNull();

    const del = await s.rest.inject({ method: "DELETE", url: `/api/v1/users/${user.id}`, headers });
    expect(del.statusCode).toBe(204);
    const gone = await s.rest.inject({ method: "GET", url: `/api/v1/users/${user.id}`, headers });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: { code: "NOT_FOUND", message: "User not found" } });
  });
});
