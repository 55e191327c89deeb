import fc from "fast-check";
import type { FuzzTarget } from "./harness.js";
import { sendHttp1 } from "./http1.js";
import { judgeMcp } from "./mcp.js";
import { httpProblems, Tally, type Problem } from "./oracle.js";
import type { FuzzReport } from "./run.js";
import { restSeedBytes, type Seeds } from "./seeds.js";

/**
 * The cumulative mode: what one request cannot do but many can. Each round
 * sends a burst of large bodies that must be refused — without a key to the
 * REST gateway (1 MB each, or 12 MB at once), with the read_only key to the
 * MCP gateway (3.9 MB tools/call) — and then ordinary traffic, which must be
 * answered as if the burst had never happened: no 5xx, and a keyed read 200.
 * Every request of a round counts as a case.
 */

const MB = 1_000_000;

type Burst =
  | { kind: "rest-1mb"; count: number; route: "metadata" | "any-write" }
  | { kind: "rest-12mb"; count: number }
  | { kind: "rest-mixed"; count: number }
  | { kind: "mcp-3.9mb"; count: number };

const burst: fc.Arbitrary<Burst> = fc.oneof(
  fc.record({
    kind: fc.constant("rest-1mb" as const),
    count: fc.integer({ min: 11, max: 20 }),
    route: fc.constantFrom("metadata" as const, "any-write" as const),
  }),
  fc.record({ kind: fc.constant("rest-12mb" as const), count: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant("rest-mixed" as const), count: fc.integer({ min: 5, max: 12 }) }),
  fc.record({ kind: fc.constant("mcp-3.9mb" as const), count: fc.integer({ min: 3, max: 10 }) }),
);

/** A JSON object of about `size` bytes: one text field filled with "a". */
const bigJson = (size: number, prefix = '{"fuzz":"') =>
  `${prefix}${"a".repeat(Math.max(0, size - prefix.length - 2))}"}`;

function http1(method: string, target: string, port: number, body: Buffer | null, headers: string[]): Buffer {
  const head = [
    `${method} ${target} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    "connection: close",
    ...headers,
    ...(body ? ["content-type: application/json", `content-length: ${body.length}`] : []),
  ];
  const h = Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1");
  return body ? Buffer.concat([h, body]) : h;
}

const mcpCall = (name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

const MCP_HEADERS = ["accept: application/json, text/event-stream"];

export async function runCumulative(
  target: FuzzTarget,
  seeds: Seeds,
  opts: { cases: number; seed: number },
): Promise<FuzzReport> {
  const tally = new Tally();
  const started = Date.now();
  const refs = seeds.rest.find((s) => s.route.url === "/api/v1/transactions/:id")?.params.id;
  const txId = refs ?? "00000000-0000-0000-0000-000000000000";
  const writes = seeds.rest.filter((s) => s.route.method !== "GET" && s.body !== undefined);
  const reads = seeds.rest.filter((s) => s.route.method === "GET" && !s.route.doc?.public);
  let index = 0;
  let round = 0;

  const record = (label: string, problems: Problem[], what: string) => {
    // Told apart by the burst's kind and the request, not by the round or the burst's length.
    const where = what.replace(/^round \d+ \(([\w.-]+) × \d+\)/, "$1").replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}");
    tally.record(index++, label, problems, () => what, `cumulative ${label.split(" ")[0]}`, where);
  };

  const rest = async (what: string, bytes: Buffer, method: string, must200 = false) => {
    const res = await sendHttp1(target.restPort, bytes);
    const problems = httpProblems(res.status, res.headers["content-type"], res.body, method);
    if (must200 && res.status !== 200) problems.push(notOk(what, res.status));
    record(`rest ${res.status}`, problems, what);
  };
  const mcp = async (what: string, body: string, key: string | null, mustSucceed = false) => {
    const bytes = http1("POST", "/mcp", target.mcpPort, Buffer.from(body, "utf8"), [
      ...MCP_HEADERS,
      ...(key ? [`x-api-key: ${key}`] : []),
    ]);
    const res = await sendHttp1(target.mcpPort, bytes);
    const outcome = judgeMcp(res.status, res.headers["content-type"], res.body);
    if (mustSucceed && !outcome.succeeded) outcome.problems.push(notOk(what, outcome.label));
    record(outcome.label, outcome.problems, what);
  };

  while (tally.cases < opts.cases) {
    const b = fc.sample(burst, { seed: opts.seed + round * 7919, numRuns: 1 })[0];
    const pickSeed = fc.sample(fc.nat(), { seed: opts.seed ^ round, numRuns: 1 })[0];
    round++;
    const before = await target.checksum();
    const tag = `round ${round} (${b.kind} × ${b.count})`;

    // The burst: every request must be refused, none may take the gateway down.
    for (let i = 0; i < b.count && tally.cases < opts.cases; i++) {
      if (b.kind === "mcp-3.9mb") {
        await mcp(
          `${tag}: MCP add_comment, 3.9 MB, read_only key`,
          mcpCall("add_comment", { id: txId, body: "a".repeat(3.9 * MB) }),
          target.keys.read,
        );
        continue;
      }
      const big = b.kind === "rest-12mb" || (b.kind === "rest-mixed" && i === b.count - 1);
      if (big) {
        const body = bigJson(12 * MB, '{"provider":"csv","user_id":"x","credentials":{"csv":"');
        await rest(
          `${tag}: POST /api/v1/connections, 12 MB, no key`,
          http1("POST", "/api/v1/connections", target.restPort, Buffer.from(`${body}}`), []),
          "POST",
        );
        continue;
      }
      const seed =
        b.kind === "rest-1mb" && b.route === "metadata"
          ? undefined
          : writes.length
            ? writes[(pickSeed + i) % writes.length]
            : undefined;
      const method = seed?.route.method ?? "PUT";
      const path = seed
        ? seed.route.url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(seed.params[p] ?? ""))
        : `/api/v1/transactions/${txId}/metadata`;
      await rest(
        `${tag}: ${method} ${path}, 1 MB, no key`,
        http1(method, path, target.restPort, Buffer.from(bigJson(MB)), []),
        method,
      );
    }

    // Ordinary traffic after it: keyed reads answer 200, nothing answers 5xx.
    const keyedRead = () =>
      rest(
        `${tag}: then GET /api/v1/transactions?limit=5, read_only key`,
        http1("GET", "/api/v1/transactions?limit=5", target.restPort, null, [`x-api-key: ${target.keys.read}`]),
        "GET",
        true,
      );
    await keyedRead();
    for (let i = 0; i < 4 && reads.length; i++) {
      const seed = reads[(pickSeed + i * 13) % reads.length];
      await rest(
        `${tag}: then ${seed.route.method} ${seed.route.url} (its seed), full_access key`,
        restSeedBytes(seed, target.restPort, target.keys.full),
        seed.route.method,
      );
    }
    await mcp(`${tag}: then MCP whoami, read_only key`, mcpCall("whoami", {}), target.keys.read, true);
    await keyedRead();

    const after = await target.checksum();
    tally.checksums += 2;
    if (after !== before) tally.fail(index - 1, [{ kind: "state-change", detail: `${tag} changed the data` }], tag);
  }
  return { mode: "cumulative", seed: opts.seed, tally, ms: Date.now() - started };
}

const notOk = (what: string, answer: string | number): Problem => ({
  kind: "refused-after-burst",
  detail: `${what} answered ${answer}`,
});
