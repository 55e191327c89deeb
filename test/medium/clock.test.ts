import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../services/clock.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The core's clock: what it decides about "now" in code follows the clock it was built with.

const clock = new ManualClock(new Date("2031-05-06T07:08:09.000Z"));
let s: Stack;
let other: Stack;

beforeAll(async () => {
  [s, other] = await Promise.all([startStack({}, { clock }), startStack()]);
});
afterAll(async () => {
  await Promise.all([s?.close(), other?.close()]);
});

const post = (st: Stack, url: string, payload: object) =>
  st.rest.inject({ method: "POST", url, headers: key(st.adminKey), payload });

describe("the core's clock", () => {
  it("stamps the records the core writes, on create and on update", async () => {
    const created = await post(s, "/api/v1/users", { name: "Clocked" });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      created_at: "2031-05-06T07:08:09.000Z",
      updated_at: "2031-05-06T07:08:09.000Z",
    });
    clock.advance(90_000);
    const updated = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/users/${created.json().id}`,
      headers: key(s.adminKey),
      payload: { name: "Clocked later" },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      created_at: "2031-05-06T07:08:09.000Z",
      updated_at: "2031-05-06T07:09:39.000Z",
    });
  });

  it("is the core's own: another core on the system clock is not moved by it", async () => {
    const before = Date.now();
    const created = await post(other, "/api/v1/users", { name: "Unclocked" });
    const at = Date.parse(created.json<{ created_at: string }>().created_at);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
  });
});
