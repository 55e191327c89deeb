import type { DescMethod } from "@bufbuild/protobuf";
import fc from "fast-check";
import { allTools } from "../../gateways/mcp/tools/index.js";
import type { H2Response } from "../helpers/h2.js";
import { H2Client } from "./h2-client.js";
import { coreCase, coreMethods, coreRequest, describeCore, judgeCore, type CoreCase } from "./core.js";
import { isPublic, type FuzzTarget } from "./harness.js";
import { sendHttp1 } from "./http1.js";
import { describeMcp, judgeMcp, mcpBytes, mcpCase, type McpCase } from "./mcp.js";
import { httpProblems, Tally, type Problem } from "./oracle.js";
import { coreOneLeafCase, mcpOneLeafCase, restOneLeafCase } from "./one-leaf.js";
import { describeRest, restBytes, restCase, type RestCase } from "./rest.js";
import type { Seeds } from "./seeds.js";

export type FuzzCase = RestCase | McpCase | CoreCase;

/**
 * malformed: requests generated from the schemas, bent anywhere; one-leaf: a
 * valid request with exactly one value made hostile (one-leaf.ts).
 */
export type CaseMode = "malformed" | "one-leaf";

export interface FuzzOptions {
  cases: number;
  seed: number;
  mode?: CaseMode;
  /** The valid requests the one-leaf mode starts from (seeds.ts). */
  seeds?: Seeds;
  /** Replays one case of a run (its index, as a failure prints it) instead of running them all. */
  replay?: number;
}

export interface FuzzReport {
  mode: string;
  seed: number;
  tally: Tally;
  ms: number;
}

export const describeCase = (c: FuzzCase) =>
  (c.surface === "rest" ? describeRest(c) : c.surface === "mcp" ? describeMcp(c) : describeCore(c)) +
  (c.leaf ? `\n  one leaf: ${c.leaf}` : "");

/**
 * Case k's arbitrary: of every five cases three go to REST, one to MCP and one
 * to the core, each surface taking its routes, tools or methods in turn, so a
 * run of a few hundred cases reaches every one of them whatever the seed.
 */
function arbitraryOf<R, M, C>(k: number, rest: R[], mcp: M[], core: C[]): R | M | C {
  const round = Math.floor(k / 5);
  const slot = k % 5;
  // A surface with nothing to send (no core seed was recorded) gives its turn to REST.
  if (slot < 3 || (slot === 3 && !mcp.length) || (slot === 4 && !core.length))
    return rest[(round * 3 + Math.min(slot, 2)) % rest.length];
  return slot === 3 ? mcp[round % mcp.length] : core[round % core.length];
}

/** Core methods that may queue a sync (every write about a connection), which goes on writing after the answer. */
const SYNCS = /^(?!List|Get).*(Connection|Sync)/;

/** Case k's own seed: a case is generated from (seed, k) alone, so one case can be replayed by itself. */
const caseSeed = (seed: number, k: number) => (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(k, 0x85ebca6b)) | 0;

/** The tables whose checksum differs between two `databaseChecksum` results. */
function changedTables(before: string, after: string): string {
  const a = new Set(before.split("\n"));
  return after
    .split("\n")
    .filter((l) => !a.has(l))
    .map((l) => l.split(":")[0])
    .join(", ");
}

/**
 * Runs `cases` generated requests one after the other: REST (60 %), MCP tools
 * (20 %) and the core's entry points (20 %), each judged as it is answered.
 * A case that may not change anything (a read_only key, no key, or an error
 * answer) is checked against a checksum of every table taken before it. The
 * checksum is taken again when a statement wrote to a table (a trigger counts
 * them), and every 250 cases whatever happened; a request that never reached
 * the core (the gateways hold no state) writes nothing.
 */
export async function runFuzz(target: FuzzTarget, opts: FuzzOptions): Promise<FuzzReport> {
  const tally = new Tally();
  const methods = await coreMethods();
  const mode = opts.mode ?? "malformed";
  const seeds = opts.seeds;
  if (mode === "one-leaf" && !seeds) throw new Error("the one-leaf mode needs seeds");
  const rest: fc.Arbitrary<FuzzCase>[] =
    mode === "one-leaf" ? seeds!.rest.map(restOneLeafCase) : target.routes.map((r) => restCase([r], target.pools));
  const mcp: fc.Arbitrary<FuzzCase>[] =
    mode === "one-leaf" ? seeds!.mcp.map(mcpOneLeafCase) : allTools.map((t) => mcpCase([t]));
  const core: fc.Arbitrary<FuzzCase>[] =
    mode === "one-leaf" ? seeds!.core.map(coreOneLeafCase) : methods.map((m) => coreCase([m]));
  const h2 = new H2Client(target.coreUrl);
  let baseline = await target.checksum();
  let writes = await target.writes();
  let index = opts.replay ?? 0;
  const started = Date.now();

  const runOne = async (c: FuzzCase) => {
    const problems: Problem[] = [];
    let calls: DescMethod[];
    let label: string;
    let mayChange: boolean;
    let reachedCore = true;
    target.takeCoreCalls();
    if (c.surface === "rest") {
      const res = await sendHttp1(target.restPort, restBytes(c, target.restPort, target.keys));
      calls = target.takeCoreCalls();
      problems.push(...httpProblems(res.status, res.headers["content-type"], res.body, c.method));
      label = `rest ${res.status}`;
      reachedCore = calls.length > 0;
      mayChange = res.status >= 200 && res.status < 300 && (c.key === "full" || calls.some(isPublic));
    } else if (c.surface === "mcp") {
      const res = await sendHttp1(target.mcpPort, mcpBytes(c, target.mcpPort, target.keys));
      calls = target.takeCoreCalls();
      const outcome = judgeMcp(res.status, res.headers["content-type"], res.body);
      problems.push(...outcome.problems);
      label = outcome.label;
      reachedCore = calls.length > 0;
      mayChange = outcome.succeeded && (c.key === "full" || calls.some(isPublic));
    } else {
      let res: H2Response;
      try {
        res = await h2.request(coreRequest(c, target.keys));
      } catch (e) {
        res = { status: 0, headers: {}, body: Buffer.from(String(e)), trailers: {} };
        problems.push({ kind: "no-answer", detail: String(e) });
      }
      const outcome = judgeCore(c, res);
      problems.push(...outcome.problems);
      label = outcome.label;
      const method = methods.find((m) => `/${m.parent.typeName}/${m.name}` === c.method)!;
      calls = [method];
      mayChange = outcome.ok && (c.key === "full" || isPublic(method));
    }
    // A connection created or synced goes on writing after its answer: waited for, so the next case is not blamed.
    if (mayChange && calls.some((m) => SYNCS.test(m.name))) await target.settle();
    // No statement wrote to any table: the checksum would be the same, so it is skipped.
    const nowWrites = reachedCore ? await target.writes() : writes;
    if (nowWrites !== writes || index % 250 === 0) {
      writes = nowWrites;
      const after = await target.checksum();
      tally.checksums++;
      if (!mayChange && after !== baseline)
        problems.push({
          kind: "state-change",
          detail: `changed: ${changedTables(baseline, after)} (answer: ${label})`,
        });
      baseline = after;
    }
    const to = c.surface === "rest" ? `rest ${c.route}` : c.surface === "mcp" ? `mcp ${c.tool}` : `core ${c.method}`;
    // A replay shows its request and answer whether or not it fails.
    if (opts.replay !== undefined || process.env.COFFER_FUZZ_VERBOSE)
      console.log(`case ${index}: ${describeCase(c)}\n  answer: ${label}`);
    // One-leaf failures are told apart by the leaf and the kind of value ("body email ← nul"), not the value itself.
    const where = c.leaf ? `${to}: ${/^.*? ← (?:duplicate key|[\w-]+)/.exec(c.leaf)?.[0] ?? c.leaf}` : to;
    tally.record(index, label, problems, () => describeCase(c), to, where);
  };

  try {
    const first = opts.replay ?? 0;
    const end = opts.replay === undefined ? opts.cases : opts.replay + 1;
    for (let k = first; k < end; k++) {
      index = k;
      await runOne(fc.sample(arbitraryOf(k, rest, mcp, core), { seed: caseSeed(opts.seed, k), numRuns: 1 })[0]);
    }
  } finally {
    h2.close();
  }
  // Whatever the last cases did without reaching the core is checked here.
  const final = await target.checksum();
  if (final !== baseline)
    tally.record(
      index,
      "final checksum",
      [{ kind: "state-change", detail: changedTables(baseline, final) }],
      () => "after the last case",
    );
  return { mode, seed: opts.seed, tally, ms: Date.now() - started };
}

/** The report `npm run fuzz` prints, and the CI test on failure. */
export function formatReport(r: FuzzReport): string {
  const t = r.tally;
  const byStatus = [...t.byStatus.entries()].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
  const perThousand = (r.ms / Math.max(t.cases, 1)).toFixed(2);
  const lines = [
    `fuzz (${r.mode}): ${t.cases} cases, seed ${r.seed}, ${(r.ms / 1000).toFixed(1)} s in all, ` +
      `${perThousand} s per 1,000 cases, ` +
      `${t.checksums} state checksums`,
    `covered: ${t.covered.size} of the routes, tools and core methods`,
    "answers:",
    ...byStatus.map(([k, n]) => `  ${k.padEnd(40)} ${n}`),
    `5xx: ${t.count("5xx")}  no answer: ${t.count("no-answer")}  non-envelope: ${t.count("non-envelope")}  ` +
      `leaked internals: ${t.count("leak")}  internal codes: ${t.count("internal-code")}  ` +
      `state changes: ${t.count("state-change")}`,
  ];
  if (t.distinct.size) {
    lines.push("distinct failures (count, first case):");
    for (const [k, d] of [...t.distinct.entries()].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`  ${k}  (${d.count}, case ${d.first})`);
  }
  for (const f of t.failures) {
    // A cumulative case depends on the rounds before it: the whole run is the replay.
    const replay =
      r.mode === "cumulative"
        ? `npm run fuzz -- --mode cumulative --seed ${r.seed} --cases ${t.cases}`
        : `npm run fuzz -- --mode ${r.mode} --seed ${r.seed} --replay ${f.index}`;
    lines.push(`FAILED case ${f.index} (replay: ${replay})`);
    for (const p of f.problems) lines.push(`  ${p.kind}: ${p.detail}`);
    lines.push(`  ${f.request}`);
  }
  return lines.join("\n");
}
