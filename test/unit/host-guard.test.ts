import { describe, expect, it } from "vitest";
import { hostGuard, hostNameOf, isLoopback } from "../../gateways/shared/host-guard.js";

const code = (r: ReturnType<ReturnType<typeof hostGuard>>) => r?.body.error.code ?? "ok";

describe("the DNS-rebinding guard", () => {
  it.each([
    ["localhost:8080", "localhost"],
    ["LOCALHOST", "localhost"],
    ["[::1]:8090", "[::1]"],
    ["127.0.0.1", "127.0.0.1"],
    ["coffer.example.com:443", "coffer.example.com"],
  ])("host name of %s is %s", (header, name) => {
    expect(hostNameOf(header)).toBe(name);
  });

  it.each([
    ["127.0.0.1", true],
    ["127.8.9.1", true],
    ["::1", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["192.168.1.10", false],
    ["::", false],
  ])("%s is loopback: %s", (address, loopback) => {
    expect(isLoopback(address)).toBe(loopback);
  });

  describe("on a loopback listener", () => {
    const guard = hostGuard({
      listenHost: "127.0.0.1",
      publicUrl: "https://coffer.home.example",
      allowedHosts: ["nas.local"],
      allowedOrigins: ["https://agent.example"],
    });
    it.each([
      ["localhost:8090", undefined, "ok"],
      ["127.0.0.1:8090", undefined, "ok"],
      ["[::1]:8090", undefined, "ok"],
      ["coffer.home.example", undefined, "ok"],
      ["nas.local:8090", undefined, "ok"],
      ["evil.example.com", undefined, "INVALID_HOST"],
      ["evil.example.com:8090", "http://localhost:3000", "INVALID_HOST"],
      ["localhost:8090", "http://localhost:3000", "ok"],
      ["localhost:8090", "http://127.0.0.1:5173", "ok"],
      ["localhost:8090", "http://[::1]:8090", "ok"],
      ["localhost:8090", "https://coffer.home.example", "ok"],
      ["localhost:8090", "https://agent.example", "ok"],
      ["localhost:8090", "http://evil.example.com", "ORIGIN_MISMATCH"],
      ["localhost:8090", "http://localhost.evil.example.com", "ORIGIN_MISMATCH"],
      ["localhost:8090", "null", "ORIGIN_MISMATCH"],
      ["localhost:8090", "file://", "ORIGIN_MISMATCH"],
    ])("Host %s, Origin %s → %s", (host, origin, want) => {
      expect(code(guard(host, origin))).toBe(want);
    });
  });

  describe("on 0.0.0.0 behind a proxy", () => {
    it("answers any host while COFFER_ALLOWED_HOSTS is empty, and no loopback origin", () => {
      const guard = hostGuard({
        listenHost: "0.0.0.0",
        publicUrl: "https://c.example",
        allowedHosts: [],
        allowedOrigins: [],
      });
      expect(code(guard("anything.example", undefined))).toBe("ok");
      expect(code(guard("c.example", "https://c.example"))).toBe("ok");
      expect(code(guard("c.example", "http://localhost:3000"))).toBe("ORIGIN_MISMATCH");
    });
    it("answers only the listed names (and the public URL's, and loopback) when COFFER_ALLOWED_HOSTS is set", () => {
      const guard = hostGuard({ listenHost: "0.0.0.0", publicUrl: "https://c.example", allowedHosts: ["coffer.lan"] });
      expect(code(guard("coffer.lan:8080", undefined))).toBe("ok");
      expect(code(guard("c.example", undefined))).toBe("ok");
      expect(code(guard("localhost:8080", undefined))).toBe("ok");
      expect(code(guard("evil.example.com", undefined))).toBe("INVALID_HOST");
    });
  });

  it("does not check Origin where no allowed origins are configured (the REST gateway)", () => {
    const guard = hostGuard({ listenHost: "127.0.0.1", publicUrl: "http://localhost:8080", allowedHosts: [] });
    expect(code(guard("localhost:8080", "http://evil.example.com"))).toBe("ok");
  });
});
