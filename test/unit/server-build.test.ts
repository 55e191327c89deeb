import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serverBuildPresent, serverBuildState } from "../../bin/build.js";

// A project as bin/build.js sees it: the compiled folders, tsconfig.build.json, and dist/ with its stamp.
const root = mkdtempSync(join(tmpdir(), "coffer-build-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const at = (path: string, seconds: number) => {
  const t = new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
  utimesSync(join(root, path), t, t);
};

describe("serverBuildState: whether dist/ is the compile of the current sources", () => {
  it("is missing without a stamp or without dist/cli/main.js, stale when a source is newer, else fresh", () => {
    expect(serverBuildState(root)).toBe("no-sources");
    writeFileSync(join(root, "tsconfig.build.json"), "{}");
    mkdirSync(join(root, "services/db"), { recursive: true });
    writeFileSync(join(root, "services/db/orm.ts"), "export {};\n");
    expect(serverBuildState(root)).toBe("missing");

    mkdirSync(join(root, "dist/cli"), { recursive: true });
    writeFileSync(join(root, "dist/cli/main.js"), "export {};\n");
    expect(serverBuildState(root)).toBe("missing"); // no stamp: a compile that did not finish
    expect(serverBuildPresent(root)).toBe(false);

    writeFileSync(join(root, "dist/.build-stamp"), "");
    for (const p of ["tsconfig.build.json", "services/db/orm.ts", "services/db", "services"]) at(p, 0);
    at("dist/.build-stamp", 10);
    expect(serverBuildPresent(root)).toBe(true);
    expect(serverBuildState(root)).toBe("fresh");

    // A file deep in a compiled folder, saved after the compile began.
    at("services/db/orm.ts", 11);
    expect(serverBuildState(root)).toBe("stale");
    at("dist/.build-stamp", 12);
    expect(serverBuildState(root)).toBe("fresh");

    // A new file (its folder's time changes too), and the build settings.
    writeFileSync(join(root, "services/db/new.ts"), "export {};\n");
    at("services/db/new.ts", 0);
    at("services/db", 13);
    expect(serverBuildState(root)).toBe("stale");
    at("services/db", 0);
    at("tsconfig.build.json", 13);
    expect(serverBuildState(root)).toBe("stale");
  });
});
