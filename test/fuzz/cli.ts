import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

// `npm run fuzz -- --cases N [--mode M] [--seed S] [--replay I]`: the suite's
// fuzz test (test/fuzz/fuzz.test.ts) run longer, with a random seed unless one
// is given, or one case of a run replayed. The test prints the counts and any
// failure with its mode, seed and case number.
const MODES = ["all", "malformed", "one-leaf", "cumulative"];
const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "20000" },
    seed: { type: "string" },
    replay: { type: "string" },
    mode: { type: "string", default: "all" },
  },
});
if (!MODES.includes(values.mode)) {
  console.error(`--mode must be one of ${MODES.join(", ")}`);
  process.exit(2);
}
if (values.replay !== undefined && (values.mode === "all" || values.mode === "cumulative")) {
  console.error("--replay needs --mode malformed or --mode one-leaf (a failure prints the whole command)");
  process.exit(2);
}
const int = (name: string, v: string | undefined) => {
  if (v !== undefined && !/^-?\d+$/.test(v)) {
    console.error(`--${name} must be a whole number`);
    process.exit(2);
  }
  return v;
};
const cases = int("cases", values.cases)!;
const seed = int("seed", values.seed) ?? String(Math.floor(Math.random() * 2 ** 31));
const replay = int("replay", values.replay);

// vitest's command is vitest.mjs beside its package.json (not an export of the package).
const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const result = spawnSync(process.execPath, [vitest, "run", "test/fuzz/fuzz.test.ts"], {
  stdio: "inherit",
  env: {
    ...process.env,
    COFFER_FUZZ_CASES: cases,
    COFFER_FUZZ_SEED: seed,
    COFFER_FUZZ_MODE: values.mode,
    ...(replay === undefined ? {} : { COFFER_FUZZ_REPLAY: replay }),
  },
});
process.exit(result.status ?? 1);
