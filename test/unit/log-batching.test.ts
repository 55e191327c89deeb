import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const LOGGING = fileURLToPath(new URL("../../common/logging.ts", import.meta.url));

/**
 * A process that logs `lines` request-sized JSON lines through the logger
 * every process uses (fastify's, on stdout, batched) and then stays alive until killed.
 */
function logger(lines: number) {
  const program = `
    import { fastify } from "fastify";
    const { loggerOptions } = await import(${JSON.stringify(LOGGING)});
    const log = fastify({ logger: loggerOptions("test", "info") }).log;
    const req = { method: "GET", url: "/api/v1/keys/me" };
    for (let i = 0; i < ${lines}; i++) log.info({ req, i }, "request completed");
    setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const lineCount = () => out.split("\n").filter(Boolean).length;
  /** Resolves once `n` whole lines have arrived on stdout (the witness), while the process still runs. */
  const until = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (lineCount() >= n) resolve();
      };
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString("utf8");
        check();
      });
      child.once("exit", (code) => reject(new Error(`the logger exited (${code}) after ${lineCount()} lines`)));
      // Fails before the test's own timeout, so that `finally` still stops the process.
      setTimeout(() => reject(new Error(`only ${lineCount()} of ${n} lines arrived in 20 s`)), 20_000).unref();
    });
  return { child, until, lines: () => out.split("\n").filter(Boolean) };
}

describe("JSON log lines on stdout are batched, not held", () => {
  it("a single line short of the batch size is written while the process runs", async () => {
    const p = logger(1);
    try {
      await p.until(1);
      expect(p.child.exitCode).toBe(null);
      expect(JSON.parse(p.lines()[0])).toMatchObject({ service: "test", msg: "request completed", i: 0 });
    } finally {
      p.child.kill();
    }
  }, 30_000);

  it("many lines arrive whole and in order", async () => {
    const p = logger(500);
    try {
      await p.until(500);
      expect(p.child.exitCode).toBe(null);
      expect(p.lines().map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(500).keys()]);
    } finally {
      p.child.kill();
    }
  }, 30_000);
});
