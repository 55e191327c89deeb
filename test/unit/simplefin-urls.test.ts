import { describe, expect, it } from "vitest";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { accessUrlId, claimUrl, parseAccessUrl } from "../../services/sync/providers/simplefin/access-url.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("SimpleFIN URLs", () => {
  it("decodes a setup token into its claim URL, ignoring surrounding whitespace", () => {
    const token = ` ${b64("https://bridge.simplefin.org/simplefin/claim/DEMO-v2-123")}\n`;
    expect(claimUrl(token).toString()).toBe("https://bridge.simplefin.org/simplefin/claim/DEMO-v2-123");
  });

  it.each([
    ["http to a public host", b64("http://bridge.simplefin.org/claim/x")],
    ["ftp", b64("ftp://127.0.0.1/claim/x")],
    ["text that is not base64", "not a token!"],
    ["base64 of something not a URL", b64("just words")],
  ])("refuses a setup token with %s", (_what, token) => {
    expect(() => claimUrl(token)).toThrow(ProviderError);
  });

  it.each(["http://127.0.0.1:9/claim/x", "http://localhost/claim/x", "http://[::1]:9/claim/x"])(
    "allows plain http to the loopback host %s",
    (url) => {
      expect(claimUrl(b64(url)).protocol).toBe("http:");
    },
  );

  it("splits an access URL into its root and a Basic header, percent-decoding the user info", () => {
    const parsed = parseAccessUrl("https://us%40er:p%3Ass@bridge.simplefin.org/simplefin/");
    expect(parsed.root).toBe("https://bridge.simplefin.org/simplefin");
    expect(Buffer.from(parsed.authorization.slice(6), "base64").toString()).toBe("us@er:p:ss");
  });

  it("refuses an access URL without credentials or over http to a public host", () => {
    expect(() => parseAccessUrl("https://bridge.simplefin.org/simplefin")).toThrow(/no credentials/);
    expect(() => parseAccessUrl("http://u:p@bridge.simplefin.org/simplefin")).toThrow(/https/);
  });

  it("names the login by a hash that holds neither the user nor the password", () => {
    const id = accessUrlId("https://user123:pass456@bridge.simplefin.org/simplefin");
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(accessUrlId("https://user123:other@bridge.simplefin.org/simplefin")).toBe(id);
    expect(accessUrlId("https://user124:pass456@bridge.simplefin.org/simplefin")).not.toBe(id);
  });
});
