import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COFFER_BIN, REPO_ROOT, cofferEnv, freePort, waitForOk } from "../helpers/processes.js";

// `npm start` as a person runs it: in a terminal (a pseudo-terminal from util-linux's `script`), on the
// embedded PostgreSQL, at the default log level, then Ctrl-C typed into that terminal (which signals the
// whole foreground process group, not only the supervisor).
// Under /tmp (world-traversable): the embedded server runs as the `postgres` user when we are root.
const dataDir = mkdtempSync(join(tmpdir(), "coffer-tty-"));
chmodSync(dataDir, 0o755);

afterAll(() => {
  // Should the test fail half-way, the embedded server (a process group of its own) must not outlive it.
  const pidFile = join(dataDir, "data", "pg", "postmaster.pid");
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGINT");
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("coffer start in a terminal", () => {
  it("prints one readable line per event and the summary, no JSON and no probes; Ctrl-C stops cleanly", async () => {
    const [pgPort, corePort, restPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const env = cofferEnv({
      COFFER_DATA_DIR: join(dataDir, "data"),
      COFFER_EMBEDDED_PG_PORT: String(pgPort),
      COFFER_CORE_PORT: String(corePort),
      COFFER_REST_PORT: String(restPort),
      COFFER_MCP_PORT: String(mcpPort),
      COFFER_LOG_LEVEL: "info",
    });
    // `exec`: `script` runs the command through $SHELL, and dash (Debian's /bin/sh), left waiting in the
    // foreground, kills itself with the Ctrl-C's SIGINT after the supervisor exits 0 (exit status 130).
    const terminal = spawn("script", ["-qfec", `exec ${process.execPath} ${COFFER_BIN} start`, "/dev/null"], {
      cwd: REPO_ROOT,
      env: { ...env, SHELL: "/bin/sh" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    terminal.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
    terminal.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
    const exited = new Promise<number | null>((r) => terminal.once("exit", (code) => r(code)));
    // The terminal writes \r\n, and echoes the Ctrl-C as ^C.
    const lines = () =>
      output
        .split(/\r?\n/)
        .map((l) => l.replace(/^\^C/, ""))
        .filter((l) => l.trim() !== "");
    try {
      await waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 90_000);
      for (const deadline = Date.now() + 20_000; !output.includes("Press Ctrl-C to stop.");) {
        if (Date.now() > deadline) throw new Error(`no summary:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Probes are what people (and supervisors) send all day; a few more must stay out of the log too.
      for (let i = 0; i < 3; i++) await fetch(`http://127.0.0.1:${restPort}/health/ready`);
      await fetch(`http://127.0.0.1:${mcpPort}/health`);
      expect((await fetch(`http://127.0.0.1:${restPort}/api/v1/version`)).status).toBe(200);
      for (const deadline = Date.now() + 5_000; !output.includes("/api/v1/version");) {
        if (Date.now() > deadline) throw new Error(`the request was not logged:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }

      terminal.stdin.write("\x03"); // Ctrl-C
      expect(await exited).toBe(0);
    } finally {
      if (terminal.exitCode === null) process.kill(-terminal.pid!, "SIGKILL");
    }

    const said = lines();
    const at = (re: RegExp) => said.findIndex((l) => re.test(l));
    const time = "^\\d\\d:\\d\\d:\\d\\d ";
    // Every line is a sentence or the summary: no JSON, no health probes, no warnings.
    expect(
      said.filter((l) => l.trimStart().startsWith("{")),
      output,
    ).toEqual([]);
    expect(
      said.filter((l) => l.includes("/health") && !l.includes("(health: ")),
      output,
    ).toEqual([]);
    expect(
      said.filter((l) => /warn|error|job queue/i.test(l)),
      output,
    ).toEqual([]);
    // One readable line per lifecycle event, in order.
    const started = at(new RegExp(`${time}coffer core started \\(pid \\d+\\)$`));
    const migrated = at(new RegExp(`${time}core +migrated the database \\(\\d+ new\\)$`));
    const listening = at(new RegExp(`${time}core +Server listening at http://127\\.0\\.0\\.1:${corePort}$`));
    const ready = at(/^Coffer is running \(ready in [\d.]+s\) on the embedded PostgreSQL/);
    const request = at(new RegExp(`${time}rest +GET /api/v1/version 200 \\(\\d+ ms\\)$`));
    const stopping = at(new RegExp(`${time}coffer stopping Coffer…$`));
    const coreStopped = at(new RegExp(`${time}coffer core stopped$`));
    const dbStopped = at(new RegExp(`${time}coffer the embedded PostgreSQL stopped$`));
    const stopped = at(new RegExp(`${time}coffer Coffer stopped$`));
    const events = [started, migrated, listening, ready, request, stopping, coreStopped, dbStopped, stopped];
    expect(events, output).toEqual([...events].sort((a, b) => a - b));
    expect(started, output).toBeGreaterThanOrEqual(0);
    for (const name of ["rest", "mcp"]) {
      expect(at(new RegExp(`${time}${name} +Server listening at `)), output).toBeGreaterThan(started);
      expect(at(new RegExp(`${time}coffer ${name} stopped$`)), output).toBeGreaterThan(stopping);
    }
    expect(said, output).toContain(
      `  REST API   http://127.0.0.1:${restPort}/api/v1   (health: http://127.0.0.1:${restPort}/health)`,
    );
  }, 150_000);
});
