import { expect } from "vitest";
import { waitFor } from "./wait.js";

type Json = Record<string, any>;

/**
 * A REST client for the end-to-end sync tests, over real HTTP: calls with the admin key, and waits on a
 * connection's sync logs. `base` and `key` are read at each call (the processes start in a beforeAll).
 */
export function restSyncs(base: () => string, key: () => string) {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: {
        "x-api-key": key(),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  }

  /** The connection's finished sync logs, oldest first. */
  async function finishedSyncs(connectionId: string): Promise<Json[]> {
    const r = await call("GET", `/api/v1/sync/logs?connection_id=${connectionId}&limit=500`);
    expect(r.status).toBe(200);
    return (r.body.sync_logs as Json[]).filter((l) => l.status !== "running").reverse();
  }

  /** Waits for the connection's `n`-th finished sync and returns it. */
  async function nthSync(connectionId: string, n: number): Promise<Json> {
    const logs = await waitFor(
      async () => {
        const l = await finishedSyncs(connectionId);
        return l.length >= n ? l : null;
      },
      `sync ${n} of ${connectionId}`,
      30_000,
    );
    return logs[n - 1];
  }

  /** Asks for a sync and waits for it to finish. */
  async function syncNow(connectionId: string): Promise<Json> {
    const before = (await finishedSyncs(connectionId)).length;
    const r = await call("POST", `/api/v1/connections/${connectionId}/sync`);
    expect(r.status).toBe(202);
    return nthSync(connectionId, before + 1);
  }

  const connection = async (id: string) => (await call("GET", `/api/v1/connections/${id}`)).body;

  return { call, finishedSyncs, nthSync, syncNow, connection };
}
