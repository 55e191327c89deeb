import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../services/sync/providers/provider.js";
import { retrying, type RetryPolicy } from "../../../services/sync/providers/retry.js";

const fast: RetryPolicy = { tries: 3, firstDelayMs: 5, maxWaitMs: 2_000 };
const down = () => new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "Plaid HTTP 500");
const limited = (retryAfterSeconds?: number) =>
  new ProviderError("rate_limited", "RATE_LIMITED", "Plaid RATE_LIMIT_EXCEEDED", { retryAfterSeconds });

/** A request that throws the given failures in turn, then answers "ok"; it records when each try came. */
function flaky(failures: Error[]) {
  const tries: number[] = [];
  const request = async () => {
    tries.push(Date.now());
    const next = failures.shift();
    if (next !== undefined) throw next;
    return "ok";
  };
  return { request, tries };
}

describe("retrying", () => {
  it("tries a transient failure again and answers what the next try answers", async () => {
    const { request, tries } = flaky([down(), limited()]);
    await expect(retrying(fast, request)).resolves.toBe("ok");
    expect(tries).toHaveLength(3);
  });

  it("gives up after `tries` and throws the last failure", async () => {
    const last = down();
    const { request, tries } = flaky([down(), down(), last, down()]);
    await expect(retrying(fast, request)).rejects.toBe(last);
    expect(tries).toHaveLength(3);
  });

  it("never retries a failure that needs a person, nor an error that is not a provider's", async () => {
    const login = new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", "log in again");
    for (const failure of [login, new ProviderError("revoked", "ACCESS_REVOKED", "gone"), new Error("a bug")]) {
      const { request, tries } = flaky([failure]);
      await expect(retrying(fast, request)).rejects.toBe(failure);
      expect(tries).toHaveLength(1);
    }
  });

  it("retries an error that carries a transient ProviderError (Teller's status errors)", async () => {
    const carried = Object.assign(new Error("HTTP 502"), { providerError: down() });
    const { request, tries } = flaky([carried]);
    await expect(retrying(fast, request)).resolves.toBe("ok");
    expect(tries).toHaveLength(2);
  });

  it("waits what Retry-After asks before the next try", async () => {
    const { request, tries } = flaky([limited(1)]);
    await expect(retrying(fast, request)).resolves.toBe("ok");
    expect(tries[1] - tries[0]).toBeGreaterThanOrEqual(1000);
  });

  it("does not wait inside the sync for a Retry-After longer than maxWaitMs: it fails at once", async () => {
    const long = limited(3);
    const { request, tries } = flaky([long]);
    await expect(retrying(fast, request)).rejects.toBe(long);
    expect(tries).toHaveLength(1);
  });

  it("backs off exponentially with jitter: each wait between its base and twice it", async () => {
    const { request, tries } = flaky([down(), down()]);
    await retrying({ tries: 3, firstDelayMs: 100, maxWaitMs: 10_000 }, request);
    const [first, second] = [tries[1] - tries[0], tries[2] - tries[1]];
    expect(first).toBeGreaterThanOrEqual(95);
    expect(first).toBeLessThan(400);
    expect(second).toBeGreaterThanOrEqual(195);
    expect(second).toBeLessThan(800);
  });

  it("tries once with tries = 1", async () => {
    const only = down();
    const { request, tries } = flaky([only]);
    await expect(retrying({ ...fast, tries: 1 }, request)).rejects.toBe(only);
    expect(tries).toHaveLength(1);
  });
});
