import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * What the three fake provider servers share: listening on a loopback port,
 * reading bodies, answering JSON, and injected faults (a status N times, a
 * slow answer, a malformed body, rate limiting after N calls), matched by
 * path so a test can break one route and leave the others alone.
 */

/** Listens on 127.0.0.1 on `port` (0: one the OS picks); resolves the port. */
export function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
}

/** Closes the server and every connection still open (keep-alive clients included). */
export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export type Fault =
  /** Answer this status (with the fake's error body for it), with a Retry-After header when given. */
  | { kind: "status"; status: number; code?: string; retryAfterSeconds?: number }
  /** Cut the connection without an answer (a reset, as a dying proxy or load balancer does). */
  | { kind: "reset" }
  /** Wait before answering normally (longer than a client's timeout: a timeout). */
  | { kind: "slow"; ms: number }
  /** A 200 whose body is not JSON. */
  | { kind: "malformed" };

interface Armed {
  path: string | RegExp;
  fault: Fault;
  times: number;
  /** Requests on the path that pass untouched before the fault starts. */
  after: number;
}

/** Faults armed by tests, consumed by the fake's requests in order. */
export class Faults {
  private armed: Armed[] = [];
  private limits: { path: string | RegExp; after: number; seen: number }[] = [];

  /** The next `times` requests on `path` get `fault`, once `after` more have gone through (a fault mid-sync). */
  add(path: string | RegExp, fault: Fault, times = 1, after = 0): void {
    this.armed.push({ path, fault, times, after });
  }

  /** The next `2 × times` requests on `path` alternate: `fault`, a good answer, `fault`, a good answer, … */
  alternate(path: string | RegExp, fault: Fault, times: number): void {
    for (let i = 0; i < times; i++) this.armed.push({ path, fault, times: 1, after: i === 0 ? 0 : 1 });
  }

  /** After `after` more requests on `path`, every request is answered 429 until `clear()`. */
  rateLimitAfter(path: string | RegExp, after: number): void {
    this.limits.push({ path, after, seen: 0 });
  }

  clear(): void {
    this.armed = [];
    this.limits = [];
  }

  /** The fault this request meets, if any (a rate limit answers as a 429 status fault). */
  take(path: string): Fault | null {
    for (const limit of this.limits) {
      if (!matches(limit.path, path)) continue;
      limit.seen++;
      if (limit.seen > limit.after) return { kind: "status", status: 429 };
    }
    const armed = this.armed.find((a) => matches(a.path, path));
    if (!armed) return null;
    if (armed.after > 0) {
      armed.after--;
      return null;
    }
    if (--armed.times <= 0) this.armed.splice(this.armed.indexOf(armed), 1);
    return armed.fault;
  }
}

const matches = (pattern: string | RegExp, path: string) =>
  typeof pattern === "string" ? pattern === path : pattern.test(path);

/** Waits out a slow fault; answers a malformed one; cuts a reset one. True when the request has been answered. */
export async function applyTransportFault(fault: Fault | null, res: ServerResponse): Promise<boolean> {
  if (fault?.kind === "reset") {
    res.socket?.resetAndDestroy();
    return true;
  }
  if (fault?.kind === "slow") {
    await sleep(fault.ms);
    return res.destroyed;
  }
  if (fault?.kind === "malformed") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"accounts": [ {"account_id": "trunc');
    return true;
  }
  return false;
}

/** A small seeded PRNG (mulberry32) so generated data is the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function randomId(random: () => number, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return s;
}

/** `YYYY-MM-DD` of today minus `n` days, UTC. */
export const daysAgo = (n: number, from = new Date()) =>
  new Date(from.getTime() - n * 86_400_000).toISOString().slice(0, 10);
