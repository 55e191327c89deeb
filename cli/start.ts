import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readEnv } from "../common/env.js";
import { openDatabase } from "./embedded-postgres.js";
import { encryptionKeyFor } from "./encryption-key.js";

const BIN = fileURLToPath(new URL("../bin/coffer.js", import.meta.url));

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `coffer start`: one supervisor for the three processes. Opens the database
 * (embedded unless DATABASE_URL is set), starts the core (which applies the
 * migrations before it listens, under a lock), then the
 * REST and MCP gateways, and stops everything cleanly on Ctrl-C.
 */
export async function start(env: NodeJS.ProcessEnv) {
  const began = Date.now();
  const say = (m: string) => process.stderr.write(`${m}\n`);
  const e = readEnv(env);
  const db = await openDatabase(e, say);

  const { corePort, restPort, mcpPort, host } = e;
  const shown = host === "0.0.0.0" ? "localhost" : host;
  const childEnv: NodeJS.ProcessEnv = { ...env, DATABASE_URL: db.url, COFFER_CORE_URL: e.coreUrl };
  // On the embedded database the key lives in the data directory, made on first start.
  const key = encryptionKeyFor(e);
  if (key) childEnv.COFFER_ENCRYPTION_KEY = key;

  const children: ChildProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping Coffer…");
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once("exit", () => resolve());
            c.kill("SIGTERM");
          }),
      ),
    );
    await db.stop();
    process.exit(code);
  };
  const run = (name: string) => {
    const child = spawn(process.execPath, [BIN, name], { env: childEnv, stdio: ["ignore", "inherit", "inherit"] });
    child.on("exit", (code, signal) => {
      if (!stopping) {
        say(`coffer ${name} exited (${signal ?? code}); stopping the others`);
        void stopAll(1);
      }
    });
    children.push(child);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  run("core");
  run("rest");
  run("mcp");
  // Ready means the REST gateway reaches the core and the core reaches the database.
  await waitFor(`http://127.0.0.1:${restPort}/health/ready`, 30_000);
  await waitFor(`http://127.0.0.1:${mcpPort}/health`, 30_000);

  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  process.stdout.write(
    [
      ``,
      `Coffer is running (ready in ${seconds}s)${db.owned ? ` on the embedded PostgreSQL in ${e.dataDir}` : ""}.`,
      `  REST API   http://${shown}:${restPort}/api/v1   (health: http://${shown}:${restPort}/health)`,
      `  MCP        http://${shown}:${mcpPort}/mcp`,
      `  core       http://${shown}:${corePort}   (Connect, gRPC, gRPC-Web over h2c)`,
      ``,
      `Create your first API key (in another terminal):`,
      `  npx coffer keys create --name admin --scope full_access`,
      `Then:  curl -H "X-API-Key: <key>" http://${shown}:${restPort}/api/v1/keys/me`,
      `Press Ctrl-C to stop.`,
      ``,
    ].join("\n"),
  );
}
