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
      rulePreviewTimeoutMs: 10_000,
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
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => readEnv({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });
});
