import { afterAll, beforeAll, expect, it } from "vitest";
import { allTools } from "../../gateways/mcp/tools/index.js";
import { coreMethods } from "./core.js";
import { startFuzzTarget, type FuzzTarget } from "./harness.js";
import { formatReport, runFuzz } from "./run.js";

// The fuzz test that stays in the suite: a bounded run with a fixed seed in
// `npm test`; `npm run fuzz -- --cases N [--seed S] [--replay I]` sets these
// variables for a longer run or a replay (test/fuzz/cli.ts).
const CASES = Number(process.env.COFFER_FUZZ_CASES ?? 2200);
const SEED = Number(process.env.COFFER_FUZZ_SEED ?? 20261126);
const REPLAY = process.env.COFFER_FUZZ_REPLAY === undefined ? undefined : Number(process.env.COFFER_FUZZ_REPLAY);

let target: FuzzTarget;
beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => {
  await target?.close();
});

it(
  `${REPLAY === undefined ? `${CASES} malformed requests` : `case ${REPLAY}`} (seed ${SEED}): ` +
    "never a 5xx, always the envelope, nothing leaked, nothing changed",
  async () => {
    const report = await runFuzz(target, { cases: CASES, seed: SEED, replay: REPLAY });
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
      },
      text,
    ).toEqual({
      "5xx": 0,
      "no answer": 0,
      "non-envelope": 0,
      "leaked internals": 0,
      "internal codes": 0,
      "state changes": 0,
    });
    if (REPLAY === undefined) {
      // Generated from the tables: every REST route, MCP tool and core method got cases.
      const expected = [
        ...target.routes.map((r) => `rest ${r.method} ${r.url}`),
        ...allTools.map((tool) => `mcp ${tool.name}`),
        ...(await coreMethods()).map((m) => `core /${m.parent.typeName}/${m.name}`),
      ];
      if (CASES >= 2000) expect(expected.filter((e) => !t.covered.has(e))).toEqual([]);
    }
  },
  Math.max(120_000, CASES * 200),
);
