/**
 * `npm run bench`: every benchmark that needs no generated data set, one after
 * the other (they share the machine's cores).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BENCHES = ["keys-me.ts", "cold-start.ts"];
let failed = false;
for (const file of BENCHES) {
  console.log(`\n# ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(new URL(file, import.meta.url))], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
