import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../common/env.js";

describe("readEnv: the one reader of Coffer's environment", () => {
  it("has the documented defaults", () => {
    expect(readEnv({}, false)).toEqual({
      databaseUrl: undefined,
      dataDir: ".coffer",
      embeddedPgPort: 54329,
      host: "127.0.0.1",
      corePort: 7100,
      restPort: 8080,
      mcpPort: 8090,
      coreUrl: "http://127.0.0.1:7100",
      publicUrl: "http://localhost:8080",
      logLevel: "info",
      logFormat: "json",
      deviceCodeTtlSeconds: 600,
      coreTimeoutMs: 10000,
      coreWriteTimeoutMs: 300_000,
      restartBackoffMs: 500,
      allowedHosts: [],
      mcpAllowedOrigins: [],
      statementTimeoutMs: 15000,
      rulePreviewTimeoutMs: 10_000,
      apiKey: undefined,
      encryptionKey: undefined,
      syncIntervalSeconds: 43200,
      syncLogRetentionDays: 90,
      trustProxy: false,
      plaid: null,
      teller: null,
      simplefin: { timeoutSeconds: 120 },
      providerRetry: { tries: 3, firstDelayMs: 10_000, maxWaitMs: 60_000 },
      plaidLinkScriptUrl: "https://cdn.plaid.com/link/v2/stable/link-initialize.js",
      tellerConnectScriptUrl: "https://cdn.teller.io/connect/connect.js",
    });
  });

  it("reads the provider retry policy, and refuses values out of range", () => {
    const env = {
      COFFER_PROVIDER_RETRIES: "1",
      COFFER_PROVIDER_RETRY_DELAY_MS: "50",
      COFFER_PROVIDER_RETRY_MAX_WAIT_SECONDS: "0",
    };
    expect(readEnv(env).providerRetry).toEqual({ tries: 1, firstDelayMs: 50, maxWaitMs: 0 });
    expect(() => readEnv({ COFFER_PROVIDER_RETRIES: "0" })).toThrow(/COFFER_PROVIDER_RETRIES/);
    expect(() => readEnv({ COFFER_PROVIDER_RETRY_DELAY_MS: "soon" })).toThrow(/COFFER_PROVIDER_RETRY_DELAY_MS/);
  });

  it("logs readable lines to a terminal and JSON anywhere else, unless COFFER_LOG_FORMAT says", () => {
    expect(readEnv({}, true).logFormat).toBe("pretty");
    expect(readEnv({}, false).logFormat).toBe("json");
    expect(readEnv({ COFFER_LOG_FORMAT: "json" }, true).logFormat).toBe("json");
    expect(readEnv({ COFFER_LOG_FORMAT: "pretty" }, false).logFormat).toBe("pretty");
    expect(() => readEnv({ COFFER_LOG_FORMAT: "yaml" })).toThrow(/COFFER_LOG_FORMAT must be one of json, pretty/);
  });

  it("takes the widgets' script URLs, http(s) only", () => {
    expect(
      readEnv({
        PLAID_LINK_SCRIPT_URL: "http://127.0.0.1:4567/link.js",
        TELLER_CONNECT_SCRIPT_URL: "https://t.test/c.js",
      }),
    ).toMatchObject({
      plaidLinkScriptUrl: "http://127.0.0.1:4567/link.js",
      tellerConnectScriptUrl: "https://t.test/c.js",
    });
    expect(() => readEnv({ PLAID_LINK_SCRIPT_URL: "javascript:alert(1)" })).toThrow(/PLAID_LINK_SCRIPT_URL/);
    expect(() => readEnv({ TELLER_CONNECT_SCRIPT_URL: "cdn.teller.io/connect.js" })).toThrow(
      /TELLER_CONNECT_SCRIPT_URL/,
    );
  });

  it("derives the core URL and public URL from the ports unless they are given", () => {
    expect(readEnv({ COFFER_CORE_PORT: "7200", COFFER_REST_PORT: "9000" })).toMatchObject({
      coreUrl: "http://127.0.0.1:7200",
      publicUrl: "http://localhost:9000",
    });
    expect(
      readEnv({ COFFER_CORE_URL: "http://core.internal:7100/", COFFER_PUBLIC_URL: "https://coffer.example/" }),
    ).toMatchObject({ coreUrl: "http://core.internal:7100", publicUrl: "https://coffer.example" });
  });

  it("treats an empty or blank value as unset", () => {
    expect(readEnv({ COFFER_MCP_PORT: "", COFFER_HOST: "  ", DATABASE_URL: "" })).toMatchObject({
      mcpPort: 8090,
      host: "127.0.0.1",
      databaseUrl: undefined,
    });
  });

  it("reads host and origin lists, normalised as headers carry them", () => {
    expect(
      readEnv({
        COFFER_ALLOWED_HOSTS: " Coffer.LAN , nas.local",
        COFFER_MCP_ALLOWED_ORIGINS: "https://Agent.Example:443, http://10.0.0.5:3000",
      }),
    ).toMatchObject({
      allowedHosts: ["coffer.lan", "nas.local"],
      mcpAllowedOrigins: ["https://agent.example", "http://10.0.0.5:3000"],
    });
  });

  it.each([
    ["COFFER_CORE_PORT", "http"],
    ["COFFER_REST_PORT", "0"],
    ["COFFER_MCP_PORT", "65536"],
    ["COFFER_MCP_PORT", "80.5"],
    ["COFFER_EMBEDDED_PG_PORT", "-1"],
    ["COFFER_REST_PORT", "Infinity"],
    ["COFFER_DEVICE_CODE_TTL_SECONDS", "0"],
    ["COFFER_RULE_PREVIEW_TIMEOUT_MS", "0"],
    ["COFFER_RULE_PREVIEW_TIMEOUT_MS", "fast"],
    ["COFFER_CORE_URL", "localhost:7100"],
    ["COFFER_PUBLIC_URL", "ftp://coffer.example"],
    ["COFFER_LOG_LEVEL", "loud"],
    ["COFFER_CORE_TIMEOUT_MS", "0"],
    ["COFFER_CORE_TIMEOUT_MS", "1e4"],
    ["COFFER_CORE_WRITE_TIMEOUT_MS", "0"],
    ["COFFER_RESTART_BACKOFF_MS", "30001"],
    ["COFFER_ALLOWED_HOSTS", "https://coffer.example"],
    ["COFFER_ALLOWED_HOSTS", "coffer.example/api"],
    ["COFFER_MCP_ALLOWED_ORIGINS", "https://agent.example/path"],
    ["COFFER_MCP_ALLOWED_ORIGINS", "agent.example"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "-1"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "1.5"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "3600001"],
    ["COFFER_ENCRYPTION_KEY", "abc123"],
    ["COFFER_ENCRYPTION_KEY", "g".repeat(64)],
    ["COFFER_SYNC_INTERVAL", "12 hours"],
    ["COFFER_SYNC_INTERVAL", "30s"],
    ["COFFER_SYNC_INTERVAL", "31d"],
    ["SIMPLEFIN_TIMEOUT_SECONDS", "0"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => readEnv({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });
});

describe("readEnv: sync and provider settings", () => {
  it("reads the encryption key (any case) and never echoes a bad one", () => {
    expect(readEnv({ COFFER_ENCRYPTION_KEY: "AB".repeat(32) }).encryptionKey).toBe("ab".repeat(32));
    const secret = "z".repeat(64);
    expect(() => readEnv({ COFFER_ENCRYPTION_KEY: secret })).toThrow(/^COFFER_ENCRYPTION_KEY must be 64 hex/);
    expect(() => readEnv({ COFFER_ENCRYPTION_KEY: secret })).not.toThrow(new RegExp(secret));
  });

  it.each([
    ["90m", 5400],
    ["12h", 43200],
    ["1d", 86400],
    ["3600", 3600],
    ["60s", 60],
  ])("reads COFFER_SYNC_INTERVAL=%s as %i seconds", (value, seconds) => {
    expect(readEnv({ COFFER_SYNC_INTERVAL: value }).syncIntervalSeconds).toBe(seconds);
  });

  it("configures Plaid from its id, secret and environment or base URL", () => {
    expect(readEnv({ PLAID_CLIENT_ID: "id", PLAID_SECRET: "s", PLAID_ENV: "sandbox" }).plaid).toEqual({
      clientId: "id",
      secret: "s",
      baseUrl: "https://sandbox.plaid.com",
      webhookUrl: "http://localhost:8080/webhooks/plaid",
    });
    const fake = readEnv({
      PLAID_CLIENT_ID: "id",
      PLAID_SECRET: "s",
      PLAID_BASE_URL: "http://127.0.0.1:9999/",
      COFFER_PUBLIC_URL: "https://coffer.example",
    }).plaid;
    expect(fake).toMatchObject({
      baseUrl: "http://127.0.0.1:9999",
      webhookUrl: "https://coffer.example/webhooks/plaid",
    });
  });

  it.each([
    [{ PLAID_CLIENT_ID: "id" }, /^PLAID_SECRET /],
    [{ PLAID_SECRET: "s" }, /^PLAID_CLIENT_ID /],
    [{ PLAID_CLIENT_ID: "id", PLAID_SECRET: "s" }, /^PLAID_ENV /],
    [{ PLAID_CLIENT_ID: "id", PLAID_SECRET: "s", PLAID_ENV: "development" }, /^PLAID_ENV /],
    [{ TELLER_APPLICATION_ID: "app", TELLER_ENV: "production" }, /^TELLER_CERT /],
    [{ TELLER_APPLICATION_ID: "app", TELLER_CERT: "-----BEGIN CERTIFICATE-----\nx" }, /^TELLER_KEY /],
    [{ TELLER_APPLICATION_ID: "app", TELLER_CERT: "/no/such/file.pem", TELLER_KEY: "/no/such" }, /^TELLER_CERT /],
  ])("refuses an incomplete provider configuration %o", (env, message) => {
    expect(() => readEnv(env)).toThrow(message);
  });

  it("configures Teller with PEM given inline (line breaks written \\n) or as a file", () => {
    const dir = mkdtempSync(join(tmpdir(), "coffer-env-"));
    const keyFile = join(dir, "key.pem");
    writeFileSync(keyFile, "-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\n");
    const teller = readEnv({
      TELLER_APPLICATION_ID: "app_1",
      TELLER_ENV: "development",
      TELLER_CERT: "-----BEGIN CERTIFICATE-----\\nBBB\\n-----END CERTIFICATE-----",
      TELLER_KEY: keyFile,
      TELLER_WEBHOOK_SECRETS: "one, two",
    }).teller;
    expect(teller).toEqual({
      applicationId: "app_1",
      environment: "development",
      baseUrl: "https://api.teller.io",
      certificate: "-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----",
      privateKey: "-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\n",
      ca: null,
      webhookSecrets: ["one", "two"],
    });
    writeFileSync(join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\nCCC\n-----END CERTIFICATE-----\n");
    expect(readEnv({ TELLER_APPLICATION_ID: "app_1", TELLER_CA: join(dir, "ca.pem") }).teller?.ca).toBe(
      "-----BEGIN CERTIFICATE-----\nCCC\n-----END CERTIFICATE-----\n",
    );
    expect(() => readEnv({ TELLER_APPLICATION_ID: "app_1", TELLER_CA: "/no/such/ca.pem" })).toThrow(/^TELLER_CA /);
    expect(readEnv({ TELLER_APPLICATION_ID: "app_1" }).teller).toMatchObject({
      environment: "sandbox",
      certificate: null,
    });
  });

  it("reads how many days sync logs are kept, a whole number of days", () => {
    expect(readEnv({ COFFER_SYNC_LOG_RETENTION_DAYS: "30" }).syncLogRetentionDays).toBe(30);
    for (const bad of ["0", "1.5", "90d", "-3"]) {
      expect(() => readEnv({ COFFER_SYNC_LOG_RETENTION_DAYS: bad })).toThrow(/^COFFER_SYNC_LOG_RETENTION_DAYS /);
    }
  });

  it("reads which proxies' X-Forwarded-For to believe", () => {
    expect(readEnv({ COFFER_TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(readEnv({ COFFER_TRUST_PROXY: "TRUE" }).trustProxy).toBe(true);
    expect(readEnv({ COFFER_TRUST_PROXY: "loopback, 10.0.0.0/8,::1, fd00::/8" }).trustProxy).toEqual([
      "loopback",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
    ]);
    for (const bad of ["yes", "10.0.0.0/33", "proxy.example.com", "1.2.3.4/8/1", "2"]) {
      expect(() => readEnv({ COFFER_TRUST_PROXY: bad })).toThrow(/^COFFER_TRUST_PROXY /);
    }
  });
});
