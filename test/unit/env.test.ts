import { describe, expect, it } from "vitest";
import { readEnv } from "../../common/env.js";

describe("readEnv: the one reader of Coffer's environment", () => {
  it("has the documented defaults", () => {
    expect(readEnv({})).toEqual({
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
      deviceCodeTtlSeconds: 600,
      coreTimeoutMs: 10000,
      restartBackoffMs: 500,
      allowedHosts: [],
      mcpAllowedOrigins: [],
      statementTimeoutMs: 15000,
      apiKey: undefined,
    });
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
    ["COFFER_CORE_URL", "localhost:7100"],
    ["COFFER_PUBLIC_URL", "ftp://coffer.example"],
    ["COFFER_LOG_LEVEL", "loud"],
    ["COFFER_CORE_TIMEOUT_MS", "0"],
    ["COFFER_CORE_TIMEOUT_MS", "1e4"],
    ["COFFER_RESTART_BACKOFF_MS", "30001"],
    ["COFFER_ALLOWED_HOSTS", "https://coffer.example"],
    ["COFFER_ALLOWED_HOSTS", "coffer.example/api"],
    ["COFFER_MCP_ALLOWED_ORIGINS", "https://agent.example/path"],
    ["COFFER_MCP_ALLOWED_ORIGINS", "agent.example"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "-1"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "1.5"],
    ["COFFER_STATEMENT_TIMEOUT_MS", "3600001"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => readEnv({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });
});
