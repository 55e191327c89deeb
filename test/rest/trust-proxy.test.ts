import { afterAll, beforeAll, describe, it } from "vitest";
import { buildRestApp } from "../../gateways/rest/app.js";
import { VERSION } from "../../common/version.js";
import { readEnv } from "../../common/env.js";
import { expectEnvelope } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// COFFER_TRUST_PROXY: behind a reverse proxy every request comes from the proxy's address, so the
// per-address sign-in limit would lock everyone out together. With the proxy trusted, the client's
// address is X-Forwarded-For's; without, the header is ignored (a client cannot pick its own address).

const ORIGIN = "http://localhost:8080";
const PROXY = "192.0.2.10";

let s: Stack;
let trusting: Awaited<ReturnType<typeof buildRestApp>>;
let plain: Awaited<ReturnType<typeof buildRestApp>>;

beforeAll(async () => {
  s = await startStack();
  trusting = await buildRestApp({
    core: s.core,
    version: VERSION,
    logger: false,
    trustProxy: readEnv({ COFFER_TRUST_PROXY: `${PROXY}, loopback` }).trustProxy,
  });
  plain = await buildRestApp({ core: s.core, version: VERSION, logger: false });
});
afterAll(async () => {
  await trusting?.close();
  await plain?.close();
  await s?.close();
});

let n = 0;
/** A failed sign-in (an unknown email each time, so only the per-address limit can refuse it). */
const attempt = (app: typeof plain, peer: string, forwardedFor?: string) =>
  app.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    remoteAddress: peer,
    headers: { origin: ORIGIN, ...(forwardedFor && { "x-forwarded-for": forwardedFor }) },
    payload: { email: `nobody${++n}@example.com`, password: "wrong password!!" },
  });

describe("COFFER_TRUST_PROXY", () => {
  it("behind a trusted proxy, each client is limited under its own address", async () => {
    for (let i = 0; i < 5; i++) expectEnvelope(await attempt(trusting, PROXY, "198.51.100.1"), "INVALID_CREDENTIALS");
    expectEnvelope(await attempt(trusting, PROXY, "198.51.100.1"), "RATE_LIMITED");
    // Another client behind the same proxy is not locked out (the rightmost untrusted address counts).
    expectEnvelope(await attempt(trusting, PROXY, "198.51.100.1, 198.51.100.2"), "INVALID_CREDENTIALS");
    expectEnvelope(await attempt(trusting, PROXY, "198.51.100.3"), "INVALID_CREDENTIALS");
  });

  it("a peer that is not a trusted proxy is limited under its own address, whatever X-Forwarded-For says", async () => {
    const peer = "203.0.113.20";
    for (let i = 0; i < 5; i++)
      expectEnvelope(await attempt(trusting, peer, `198.51.100.${100 + i}`), "INVALID_CREDENTIALS");
    expectEnvelope(await attempt(trusting, peer, "198.51.100.200"), "RATE_LIMITED");
  });

  it("unset, X-Forwarded-For is ignored: changing it does not escape the limit", async () => {
    const peer = "203.0.113.30";
    for (let i = 0; i < 5; i++)
      expectEnvelope(await attempt(plain, peer, `198.51.100.${150 + i}`), "INVALID_CREDENTIALS");
    expectEnvelope(await attempt(plain, peer, "198.51.100.250"), "RATE_LIMITED");
  });
});
