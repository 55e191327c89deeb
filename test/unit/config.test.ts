import { describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../services/config.js";

const base = { DATABASE_URL: "postgres://x@127.0.0.1/db" };

describe("coreConfigFromEnv", () => {
  it("has the documented defaults", () => {
    expect(coreConfigFromEnv(base)).toMatchObject({
      databaseUrl: base.DATABASE_URL,
      port: 7100,
      host: "127.0.0.1",
      deviceCodeTtlSeconds: 600,
      publicUrl: "http://localhost:8080",
      logLevel: "info",
      statementTimeoutMs: 15000,
      rulePreviewTimeoutMs: 10_000,
    });
  });

  it.each([
    [{ COFFER_CORE_PORT: "7200" }, { port: 7200 }],
    [{ COFFER_DEVICE_CODE_TTL_SECONDS: "1" }, { deviceCodeTtlSeconds: 1 }],
    [{ COFFER_DEVICE_CODE_TTL_SECONDS: "" }, { deviceCodeTtlSeconds: 600 }],
    [{ COFFER_REST_PORT: "9000" }, { publicUrl: "http://localhost:9000" }],
    [{ COFFER_PUBLIC_URL: "https://coffer.example/" }, { publicUrl: "https://coffer.example" }],
    [{ COFFER_HOST: "0.0.0.0" }, { host: "0.0.0.0" }],
    [{ COFFER_LOG_LEVEL: "warn" }, { logLevel: "warn" }],
    [{ COFFER_STATEMENT_TIMEOUT_MS: "250" }, { statementTimeoutMs: 250 }],
    [{ COFFER_STATEMENT_TIMEOUT_MS: "0" }, { statementTimeoutMs: 0 }],
    [{ COFFER_RULE_PREVIEW_TIMEOUT_MS: "2500" }, { rulePreviewTimeoutMs: 2500 }],
  ])("%o → %o", (env, expected) => {
    expect(coreConfigFromEnv({ ...base, ...env })).toMatchObject(expected);
  });

  it.each([
    [{ COFFER_DEVICE_CODE_TTL_SECONDS: "0" }, /COFFER_DEVICE_CODE_TTL_SECONDS/],
    [{ COFFER_DEVICE_CODE_TTL_SECONDS: "-5" }, /COFFER_DEVICE_CODE_TTL_SECONDS/],
    [{ COFFER_DEVICE_CODE_TTL_SECONDS: "1.5" }, /COFFER_DEVICE_CODE_TTL_SECONDS/],
    [{ COFFER_CORE_PORT: "http" }, /COFFER_CORE_PORT/],
  ])("rejects %o", (env, message) => {
    expect(() => coreConfigFromEnv({ ...base, ...env })).toThrow(message);
  });

  it("needs DATABASE_URL", () => {
    expect(() => coreConfigFromEnv({})).toThrow(/DATABASE_URL/);
  });
});
