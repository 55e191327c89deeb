import { type ChildProcess } from "node:child_process";
import { createTestDatabase } from "../../helpers/db.js";
import { COFFER_BIN, REPO_ROOT, cofferEnv, freePort, runCoffer, waitForOk } from "../../helpers/processes.js";
import { killTree, spawnTracked } from "../../helpers/tracked-processes.js";
import { FakePlaid } from "../../fakes/plaid/server.js";
import { FakeSimplefin } from "../../fakes/simplefin/server.js";
import { makeTestPki, type TestPki } from "../../fakes/teller/pki.js";
import { FakeTeller } from "../../fakes/teller/server.js";
import { WidgetServer } from "./widgets.js";

export const TELLER_APPLICATION_ID = "app_browsertest0001";

export interface ConsoleStackOptions {
  /** Configure Plaid against a local fake (default true). */
  plaid?: boolean;
  /** Configure Teller against a local fake over mTLS (default false: it makes a test PKI with openssl). */
  teller?: boolean;
  /** More environment for `coffer start`. */
  env?: Record<string, string>;
}

/**
 * The console's test stack: `coffer start` (the supervisor and its three real processes: core, REST,
 * MCP) on a cloned test database, with the fake provider servers and the fake widget scripts configured
 * through the environment. The test global setup has built the console (web/dist) from the current
 * sources. `url` is the console (the REST gateway, also COFFER_PUBLIC_URL, so the browser's Origin is the
 * console's own).
 */
export class ConsoleStack {
  url = "";
  mcpUrl = "";
  databaseUrl = "";
  env: NodeJS.ProcessEnv = {};
  /** Every line `coffer start` and its children wrote. */
  readonly lines: string[] = [];
  plaid: FakePlaid | null = null;
  teller: FakeTeller | null = null;
  simplefin = new FakeSimplefin();
  widgets!: WidgetServer;
  private pki: TestPki | null = null;
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();

  static async start(options: ConsoleStackOptions = {}): Promise<ConsoleStack> {
    const stack = new ConsoleStack();
    try {
      await stack.boot(options);
    } catch (e) {
      await stack.stop();
      throw e;
    }
    return stack;
  }

  private async boot(options: ConsoleStackOptions): Promise<void> {
    if (options.plaid ?? true) this.plaid = await new FakePlaid().start();
    if (options.teller) {
      this.pki = makeTestPki();
      this.teller = await new FakeTeller(this.pki).start();
    }
    await this.simplefin.start();
    this.widgets = await new WidgetServer(this.plaid, this.teller, TELLER_APPLICATION_ID).start();
    const [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
      createTestDatabase(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    this.databaseUrl = databaseUrl;
    this.url = `http://127.0.0.1:${restPort}`;
    this.mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const providers: Record<string, string> = {};
    if (this.plaid) {
      Object.assign(providers, {
        PLAID_CLIENT_ID: this.plaid.clientId,
        PLAID_SECRET: this.plaid.secret,
        PLAID_BASE_URL: this.plaid.url,
      });
    }
    if (this.teller && this.pki) {
      Object.assign(providers, {
        TELLER_APPLICATION_ID,
        TELLER_ENV: "sandbox",
        TELLER_BASE_URL: this.teller.url,
        TELLER_CERT: this.pki.clientCertPath,
        TELLER_KEY: this.pki.clientKeyPath,
        // The fake Teller's certificate comes from the test CA.
        NODE_EXTRA_CA_CERTS: this.pki.caCertPath,
      });
    }
    this.env = cofferEnv({
      DATABASE_URL: databaseUrl,
      COFFER_CORE_PORT: String(corePort),
      COFFER_REST_PORT: String(restPort),
      COFFER_MCP_PORT: String(mcpPort),
      COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
      COFFER_PUBLIC_URL: this.url,
      COFFER_ENCRYPTION_KEY: "0123456789abcdef".repeat(4),
      COFFER_LOG_LEVEL: "info",
      PLAID_LINK_SCRIPT_URL: this.widgets.plaidScriptUrl,
      TELLER_CONNECT_SCRIPT_URL: this.widgets.tellerScriptUrl,
      ...providers,
      ...options.env,
    });
    // In our process group: a Ctrl-C in the terminal reaches the supervisor too, which stops its children.
    const child = spawnTracked("coffer start (browser stack)", process.execPath, [COFFER_BIN, "start"], {
      env: this.env,
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    let rest = "";
    const collect = (chunk: Buffer) => {
      const parts = (rest + chunk.toString("utf8")).split("\n");
      rest = parts.pop() ?? "";
      this.lines.push(...parts);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const watch = {
      name: "start",
      child,
      lines: this.lines,
      stdoutLines: [],
      exited: this.exited.then(() => ({ code: child.exitCode, signal: null })),
    };
    await Promise.all([
      waitForOk(`${this.url}/health/ready`, 60_000, [watch]),
      waitForOk(`http://127.0.0.1:${mcpPort}/health`, 60_000, [watch]),
    ]);
    // The supervisor prints its banner (and, on a first run, the setup link) once it has seen the children ready.
    for (const deadline = Date.now() + 30_000; !this.lines.some((l) => l.includes("Press Ctrl-C to stop"));) {
      if (child.exitCode !== null) throw new Error(`coffer start exited:\n${this.lines.join("\n")}`);
      if (Date.now() > deadline) throw new Error(`coffer start printed no banner:\n${this.lines.join("\n")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Runs a one-shot CLI command against this stack's database. */
  cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return runCoffer(args, this.env);
  }

  /** A new API key made straight on the database (`coffer keys create`). */
  async createKey(scope: "full_access" | "read_only" = "full_access", name = `browser ${scope}`): Promise<string> {
    const made = await this.cli(["keys", "create", "--name", name, "--scope", scope]);
    if (made.code !== 0) throw new Error(`coffer keys create failed: ${made.stderr}`);
    return made.stdout.trim();
  }

  /** The demo household (`coffer demo`). */
  async loadDemo(): Promise<void> {
    const done = await this.cli(["demo"]);
    if (done.code !== 0) throw new Error(`coffer demo failed: ${done.stderr}`);
  }

  /** A JSON call to the REST gateway with an API key. */
  async api<T = any>(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // SIGTERM lets the supervisor stop its children; after 20 s it and everything below it are killed.
      child.kill("SIGTERM");
      const stopped = await Promise.race([
        this.exited.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 20_000)),
      ]);
      if (!stopped) await killTree(child);
      await this.exited;
    }
    await Promise.all([this.widgets?.stop(), this.plaid?.stop(), this.teller?.stop(), this.simplefin.stop()]);
    this.pki?.remove();
  }
}
