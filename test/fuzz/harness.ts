import type { AddressInfo } from "node:net";
import pg from "pg";
import { create, getOption, toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { loadDemo } from "../../cli/demo.js";
import { VERSION } from "../../common/version.js";
import { Scope, required_scope } from "../../gen/coffer/v1/options_pb.js";
import { buildMcpApp } from "../../gateways/mcp/http.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import type { RestRoute } from "../../gateways/rest/route.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { JOB_SCHEMA, SYNC_QUEUE } from "../../services/db/job-queue-schema.js";
import { query } from "../../services/db/sql.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";

/** The three keys a fuzz case may carry (besides none and a made-up one). */
export interface FuzzKeys {
  read: string;
  full: string;
}

/** Real values the generators mix into malformed ones, so that some requests get past validation. */
export interface Pools {
  /** Path parameter values by the URL segment before them ("transactions" → ids and short ids of transactions). */
  idsBySegment: Map<string, string[]>;
  /** Cursors issued by each list route (keyed by URL). */
  cursorsByUrl: Map<string, string[]>;
  /** The secret and generation cursors are signed with, to forge authentic but inconsistent cursors. */
  cursorKey: { generation: number; secret: Uint8Array };
}

/**
 * What the fuzzer runs against: a real core on h2c over real PostgreSQL (the
 * demo household loaded), and the REST and MCP gateways listening on real
 * ports. The gateways reach the core through a transport that records which
 * RPCs each request made, so a case knows whether it reached the core at all
 * and whether a public RPC (no key needed) ran.
 */
export interface FuzzTarget {
  stack: Stack;
  restPort: number;
  mcpPort: number;
  coreUrl: string;
  routes: RestRoute[];
  keys: FuzzKeys;
  pools: Pools;
  /** RPCs the gateways called since the last `takeCoreCalls()`. */
  takeCoreCalls(): DescMethod[];
  /** While on, the messages of the gateways' core calls that succeeded are kept (the core seeds, seeds.ts). */
  recordMessages(on: boolean): void;
  /** The messages kept since the last call, as Connect JSON. */
  takeMessages(): RecordedMessage[];
  /** A checksum of every row of every table (test/helpers/state.ts). */
  checksum(): Promise<string>;
  /**
   * A number that moves whenever a statement wrote (or tried to write) any
   * table: the cue to take a checksum. It never misses a write that
   * committed; it also moves for writes rolled back, which the checksum then clears.
   */
  writes(): Promise<string>;
  /**
   * Waits until background work a request started (a CSV import, a sync) is
   * over: no sync running and no row written for a moment. A write landing
   * later would be blamed on whichever case came next.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** A message a gateway sent to the core, and the core answered with success. */
export interface RecordedMessage {
  method: DescMethod;
  json: JsonValue;
}

export const isPublic = (m: DescMethod) => getOption(m, required_scope) === Scope.PUBLIC;

function recording(
  inner: Transport,
  calls: DescMethod[],
  messages: { on: boolean; kept: RecordedMessage[] },
): Transport {
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) => {
      calls.push(method);
      const answer = inner.unary(method, signal, timeoutMs, header, input, contextValues);
      if (messages.on)
        answer.then(
          () => messages.kept.push({ method, json: toJson(method.input, create(method.input, input)) }),
          () => undefined,
        );
      return answer;
    },
    stream: (method, ...rest) => {
      calls.push(method);
      return inner.stream(method, ...rest);
    },
  };
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const stack = await startStack();
  const em = () => stack.orm.em.fork();
  await loadDemo(em(), { today: new Date().toISOString().slice(0, 10) });
  // Keys the fuzzer may revoke or rename: its own two keys are kept out of the id pools.
  for (const scope of ["read_only", "full_access"] as const)
    await insertApiKey(em(), { name: `fuzz spare ${scope}`, scope });

  await watchWrites(stack);
  // Read after every case: a plain connection of its own, cheaper than an ORM fork.
  const watcher = new pg.Client({ connectionString: stack.databaseUrl });
  await watcher.connect();
  const writes = async () =>
    (await watcher.query<{ n: string }>(`select last_value || ':' || is_called as n from fuzz_watch.writes`)).rows[0].n;
  const calls: DescMethod[] = [];
  const messages = { on: false, kept: [] as RecordedMessage[] };
  const core = coreClients(recording(coreTransport(stack.coreUrl), calls, messages));
  const rest = await buildRestApp({ core, version: VERSION, logger: false });
  const mcp = await buildMcpApp({ core, version: VERSION, logger: false });
  await rest.listen({ port: 0, host: "127.0.0.1" });
  await mcp.listen({ port: 0, host: "127.0.0.1" });
  const restPort = (rest.server.address() as AddressInfo).port;
  const mcpPort = (mcp.server.address() as AddressInfo).port;

  const routes = allRoutes;
  const idsBySegment = await idPools(stack, routes);
  const cursorsByUrl = await cursorPools(stack, routes);
  const [key] = await query<{ generation: string; secret: Buffer }>(
    em(),
    `select generation::text, secret from cursor_keys order by generation desc limit 1`,
  );
  return {
    stack,
    restPort,
    mcpPort,
    coreUrl: stack.coreUrl,
    routes,
    keys: { read: stack.readKey, full: stack.adminKey },
    pools: {
      idsBySegment,
      cursorsByUrl,
      cursorKey: { generation: Number(key.generation), secret: new Uint8Array(key.secret) },
    },
    // Emptied in place: the recording transport holds this array.
    takeCoreCalls: () => calls.splice(0),
    recordMessages: (on) => {
      messages.on = on;
    },
    takeMessages: () => messages.kept.splice(0),
    checksum: () => databaseChecksum(em()),
    writes,
    async settle() {
      // A sync queued (or asked to try again shortly) and not yet started has no sync log row yet.
      const busy = async () =>
        (
          await watcher.query<{ n: number }>(
            `select ((select count(*) from sync_logs where status = 'running')
                   + (select count(*) from ${JOB_SCHEMA}.job where name = $1
                        and state in ('created', 'retry', 'active')
                        and start_after < now() + interval '30 seconds'))::int as n`,
            [SYNC_QUEUE],
          )
        ).rows[0].n > 0;
      let last = await writes();
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = await writes();
        if (now === last && !(await busy())) return;
        last = now;
      }
    },
    async close() {
      await watcher.end();
      await rest.close();
      await mcp.close();
      await stack.close();
    },
  };
}

/**
 * Triggers on every table of the schema that draw a number from a sequence
 * for every row written: sequences are not transactional and never wait, so the trigger
 * adds no lock a request could queue behind. Lives in a schema of its own,
 * outside what the checksum reads, in the fuzz run's own database.
 */
async function watchWrites(stack: Stack) {
  const em = stack.orm.em.fork();
  await query(em, `create schema fuzz_watch`);
  await query(em, `create sequence fuzz_watch.writes`);
  await query(
    em,
    `create function fuzz_watch.bump() returns trigger language plpgsql as
     $$ begin perform nextval('fuzz_watch.writes'); return null; end $$`,
  );
  const tables = await query<{ name: string }>(
    em,
    `select quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition`,
  );
  // Row triggers fire only for rows a statement touched; an update that only stamps an API key's
  // last_used_at (a read, which the checksum leaves out too) does not count.
  for (const t of tables) {
    await query(
      em,
      `create trigger fuzz_watch_rows after insert or delete on public.${t.name}
       for each row execute function fuzz_watch.bump()`,
    );
    await query(
      em,
      `create trigger fuzz_watch_updates after update on public.${t.name} for each row
       when ((to_jsonb(old) - 'last_used_at') is distinct from (to_jsonb(new) - 'last_used_at'))
       execute function fuzz_watch.bump()`,
    );
    await query(
      em,
      `create trigger fuzz_watch_truncate after truncate on public.${t.name}
       for each statement execute function fuzz_watch.bump()`,
    );
  }
}

/** The table a URL segment names ("api-keys" → api_keys), if there is one. */
const tableOf = (segment: string) => segment.replace(/-/g, "_");

/**
 * For every path parameter, up to 6 real values from the table its URL segment
 * names: ids, short ids, slugs and names, whichever columns the table has. A
 * route added later over a new table is covered by the same rule.
 */
async function idPools(stack: Stack, routes: RestRoute[]): Promise<Map<string, string[]>> {
  const em = () => stack.orm.em.fork();
  const segments = new Set<string>();
  for (const r of routes) {
    const parts = r.url.split("/");
    parts.forEach((p, i) => {
      if (p.startsWith(":") && i > 0) segments.add(parts[i - 1]);
    });
  }
  const pools = new Map<string, string[]>();
  for (const segment of segments) {
    const table = tableOf(segment);
    const cols = await query<{ column_name: string }>(
      em(),
      `select column_name from information_schema.columns
       where table_schema = 'public' and table_name = ?
         and column_name in ('id', 'short_id', 'slug', 'name', 'provider')`,
      [table],
    );
    if (cols.length === 0) continue;
    const exclude = table === "api_keys" ? `where name not in ('test admin', 'test reader')` : "";
    const names = cols.map((c) => `${c.column_name}::text`).join(", ");
    // Identifiers come from information_schema, not from input.
    const rows = await query<Record<string, string | null>>(
      em(),
      `select ${names} from ${table} ${exclude} order by random() limit 6`,
    );
    pools.set(
      segment,
      rows.flatMap((r) => Object.values(r).filter((v): v is string => typeof v === "string")),
    );
  }
  return pools;
}

/** Cursors every list route issues for a first page of one row, found by name in its JSON answer. */
async function cursorPools(stack: Stack, routes: RestRoute[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of routes) {
    const props = (r.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    if (r.method !== "GET" || !("cursor" in props) || r.url.includes(":")) continue;
    const found: string[] = [];
    for (const q of ["limit=1", "limit=2&sort_order=asc"]) {
      const res = await stack.rest.inject({
        method: "GET",
        url: `${r.url}?${"limit" in props ? q : ""}`,
        headers: { "x-api-key": stack.readKey },
      });
      if (res.statusCode !== 200) continue;
      collectCursors(res.json(), found);
    }
    out.set(r.url, found);
  }
  return out;
}

function collectCursors(v: unknown, into: string[]) {
  if (Array.isArray(v)) v.forEach((x) => collectCursors(x, into));
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      if (/cursor/.test(k) && typeof x === "string" && x) into.push(x);
      else collectCursors(x, into);
    }
}
