import { afterAll, beforeAll, expect, it } from "vitest";
import { allTools } from "../../gateways/mcp/tools/index.js";
import { coreMethods } from "./core.js";
import { runCumulative } from "./cumulative.js";
import { startFuzzTarget, type FuzzTarget } from "./harness.js";
import { formatReport, runFuzz, type FuzzReport } from "./run.js";
import { findSeeds, type Seeds } from "./seeds.js";

// The fuzz test that stays in the suite: bounded runs of every mode with a
// fixed seed in `npm test`; `npm run fuzz -- --cases N [--mode M] [--seed S]
// [--replay I]` sets these variables for a longer run or a replay (test/fuzz/cli.ts).
const MODE = process.env.COFFER_FUZZ_MODE ?? "all";
const GIVEN = process.env.COFFER_FUZZ_CASES === undefined ? undefined : Number(process.env.COFFER_FUZZ_CASES);
const SEED = Number(process.env.COFFER_FUZZ_SEED ?? 20261126);
const REPLAY = process.env.COFFER_FUZZ_REPLAY === undefined ? undefined : Number(process.env.COFFER_FUZZ_REPLAY);
const runs = (mode: string) => MODE === mode || (MODE === "all" && REPLAY === undefined);
// The cumulative mode's cases are requests of 1-12 MB: a tenth of the others' count when all modes run.
const CASES = {
  malformed: GIVEN ?? 2200,
  "one-leaf": GIVEN ?? 600,
  cumulative: GIVEN === undefined ? 60 : MODE === "cumulative" ? GIVEN : Math.ceil(GIVEN / 10),
};

let target: FuzzTarget;
let seeds: Promise<Seeds> | undefined;
const seedsOnce = () => (seeds ??= findSeeds(target));
beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => {
  await target?.close();
});

function expectClean(report: FuzzReport) {
  const text = formatReport(report);
  console.log(text);
  const t = report.tally;
  expect(
    {
      "5xx": t.count("5xx"),
      "no answer": t.count("no-answer"),
      "non-envelope": t.count("non-envelope"),
      "leaked internals": t.count("leak"),
      "internal codes": t.count("internal-code"),
      "state changes": t.count("state-change"),
      "refused after a burst": t.count("refused-after-burst"),
    },
    text,
  ).toEqual({
    "5xx": 0,
    "no answer": 0,
    "non-envelope": 0,
    "leaked internals": 0,
    "internal codes": 0,
    "state changes": 0,
    "refused after a burst": 0,
  });
}

const title = (mode: keyof typeof CASES, what: string) =>
  `${mode}: ${REPLAY === undefined ? `${CASES[mode]} ${what}` : `case ${REPLAY}`} (seed ${SEED}): ` +
  "never a 5xx, always the envelope, nothing leaked, nothing changed";

it.runIf(runs("malformed"))(
  title("malformed", "malformed requests"),
  async () => {
    const report = await runFuzz(target, { cases: CASES.malformed, seed: SEED, replay: REPLAY });
    expectClean(report);
    if (REPLAY === undefined) {
      // Generated from the tables: every REST route, MCP tool and core method got cases.
      const expected = [
        ...target.routes.map((r) => `rest ${r.method} ${r.url}`),
        ...allTools.map((tool) => `mcp ${tool.name}`),
        ...(await coreMethods()).map((m) => `core /${m.parent.typeName}/${m.name}`),
      ];
      if (CASES.malformed >= 2000) expect(expected.filter((e) => !report.tally.covered.has(e))).toEqual([]);
    }
  },
  Math.max(120_000, CASES.malformed * 200),
);

it.runIf(runs("one-leaf"))(
  title("one-leaf", "valid requests with one value made hostile"),
  async () => {
    const s = await seedsOnce();
    console.log(
      `one-leaf seeds: ${s.rest.length} REST routes, ${s.mcp.length} MCP tools, ${s.core.length} core methods; ` +
        `without a seed: ${s.missing.length ? `\n  ${s.missing.join("\n  ")}` : "none"}`,
    );
    const report = await runFuzz(target, {
      cases: CASES["one-leaf"],
      seed: SEED,
      replay: REPLAY,
      mode: "one-leaf",
      seeds: s,
    });
    expectClean(report);
    if (REPLAY === undefined && CASES["one-leaf"] >= 500) {
      // Every route, tool and core method with a seed got cases.
      const expected = [
        ...s.rest.map((r) => `rest ${r.route.method} ${r.route.url}`),
        ...s.mcp.map((m) => `mcp ${m.tool.name}`),
        ...s.core.map((c) => `core /${c.method.parent.typeName}/${c.method.name}`),
      ];
      expect(expected.filter((e) => !report.tally.covered.has(e))).toEqual([]);
    }
  },
  Math.max(120_000, CASES["one-leaf"] * 200),
);

// Last: a gateway a burst took down would fail whatever ran after it.
it.runIf(runs("cumulative") && REPLAY === undefined)(
  title("cumulative", "requests in bursts of refused large bodies, then ordinary traffic"),
  async () => {
    const report = await runCumulative(target, await seedsOnce(), { cases: CASES.cumulative, seed: SEED });
    expectClean(report);
  },
  Math.max(120_000, CASES.cumulative * 2000),
);
