import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildState, ensureConsoleBuilt } from "../../bin/build.js";

/** A console's sources as web/ lays them out, small enough to build in a moment with the real vite. */
let web: string;

beforeAll(() => {
  web = mkdtempSync(join(tmpdir(), "coffer-web-"));
  mkdirSync(join(web, "src"));
  writeFileSync(
    join(web, "index.html"),
    "<!doctype html><html><head><title>t</title></head>" +
      '<body><script type="module" src="/src/main.js"></script></body></html>\n',
  );
  writeFileSync(join(web, "src/main.js"), 'document.body.append("coffer");\n');
  writeFileSync(
    join(web, "vite.config.ts"),
    'export default { root: import.meta.dirname, build: { outDir: "dist", emptyOutDir: true } };\n',
  );
});

afterAll(() => rmSync(web, { recursive: true, force: true }));

describe("ensureConsoleBuilt", () => {
  it("has nothing to build without web/vite.config.ts", async () => {
    const empty = mkdtempSync(join(tmpdir(), "coffer-web-empty-"));
    expect(await ensureConsoleBuilt({ webDir: empty })).toBe("no-sources");
    rmSync(empty, { recursive: true });
  });

  it("builds a missing web/dist once, even when asked twice at the same time", async () => {
    expect(buildState(web)).toBe("missing");
    const said: string[] = [];
    const results = await Promise.all([
      ensureConsoleBuilt({ webDir: web, say: (m) => said.push(m) }),
      ensureConsoleBuilt({ webDir: web, say: (m) => said.push(m) }),
    ]);
    expect(results.sort()).toEqual(["built", "fresh"]);
    expect(said[0]).toMatch(/web\/dist is missing/);
    const html = readFileSync(join(web, "dist/index.html"), "utf8");
    const asset = /src="\/assets\/(index-[\w-]+\.js)"/.exec(html);
    expect(asset).not.toBeNull();
    expect(readdirSync(join(web, "dist/assets"))).toContain(asset![1]);
    expect(buildState(web)).toBe("fresh");
    expect(await ensureConsoleBuilt({ webDir: web })).toBe("fresh");
    // The lock folder is gone.
    expect(readdirSync(web)).not.toContain(".build-lock");
  }, 60_000);

  it("rebuilds when a source is newer than the build", async () => {
    const later = new Date(Date.now() + 60_000);
    writeFileSync(join(web, "src/main.js"), 'document.body.append("changed");\n');
    utimesSync(join(web, "src/main.js"), later, later);
    expect(buildState(web)).toBe("stale");
    expect(await ensureConsoleBuilt({ webDir: web })).toBe("built");
    const js = readdirSync(join(web, "dist/assets")).find((f) => f.endsWith(".js"))!;
    expect(readFileSync(join(web, "dist/assets", js), "utf8")).toContain("changed");
  }, 60_000);

  it("rejects with vite's message when the build fails, and releases the lock", async () => {
    const later = new Date(Date.now() + 120_000);
    writeFileSync(join(web, "src/main.js"), "import { nothing } from './missing.js';\nnothing();\n");
    utimesSync(join(web, "src/main.js"), later, later);
    await expect(ensureConsoleBuilt({ webDir: web })).rejects.toThrow(/vite build failed[\s\S]*missing/);
    expect(readdirSync(web)).not.toContain(".build-lock");
  }, 60_000);
});
