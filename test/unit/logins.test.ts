import { describe, expect, it } from "vitest";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { clearedSessionCookie, readCookie, sessionCookie } from "../../gateways/rest/session-cookie.js";
import { attemptKey } from "../../services/auth/login-attempts.js";
import { CURRENT_PARAMS, checkNewPassword, hashPassword, verifyPassword } from "../../services/auth/passwords.js";
import { parseRole, SCOPE_OF_ROLE } from "../../services/auth/roles.js";
import { isShortIdClash } from "../../services/ids/insert.js";
import { loggedUrl } from "../../common/logging.js";

describe("passwords", () => {
  it("hashes with a salt of its own and the parameters stored, and verifies", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(a.params).toEqual(CURRENT_PARAMS);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("verifies with the parameters a hash was made with, not today's", async () => {
    const cheap = { ...CURRENT_PARAMS, N: 2 ** 10 };
    const { scryptSync, randomBytes } = await import("node:crypto");
    const salt = randomBytes(16);
    const hash = scryptSync("an older password", salt, cheap.keylen, { N: cheap.N, r: cheap.r, p: cheap.p });
    const stored = { hash: hash.toString("base64"), salt: salt.toString("base64"), params: cheap };
    expect(await verifyPassword("an older password", stored)).toBe(true);
  });

  it("without a stored hash does the work and fails", async () => {
    expect(await verifyPassword("anything at all", null)).toBe(false);
  });

  it.each([
    ["eleven char", "password must be at least 12 characters"],
    ["x".repeat(1025), "password must be at most 1024 characters"],
  ])("refuses %j", (pw, message) => {
    expect(() => checkNewPassword(pw)).toThrow(message);
  });

  it("counts characters, not bytes", () => {
    expect(() => checkNewPassword("ééééééééééé")).toThrow(/at least 12/); // 11 characters, 22 bytes
    expect(() => checkNewPassword("twelve chars")).not.toThrow();
  });
});

describe("roles", () => {
  it("map to scopes", () => {
    expect(SCOPE_OF_ROLE).toEqual({ admin: "full_access", editor: "full_access", viewer: "read_only" });
    expect(parseRole("viewer")).toBe("viewer");
    expect(() => parseRole("owner")).toThrow("role must be one of admin, editor, viewer");
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Strict, Path=/, and Secure only behind https", () => {
    expect(sessionCookie("tok", "http://localhost:8080")).toBe(
      "coffer_session=tok; Max-Age=2592000; Path=/; HttpOnly; SameSite=Strict",
    );
    expect(sessionCookie("tok", "https://coffer.example")).toBe(
      "coffer_session=tok; Max-Age=2592000; Path=/; HttpOnly; SameSite=Strict; Secure",
    );
    expect(clearedSessionCookie("https://coffer.example")).toBe(
      "coffer_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict; Secure",
    );
  });

  it.each([
    [undefined, undefined],
    ["", undefined],
    ["coffer_session=abc", "abc"],
    ["a=1; coffer_session=abc; b=2", "abc"],
    ["xcoffer_session=abc", undefined],
    ["coffer_session=", undefined],
    ["coffer_session_other=abc", undefined],
  ])("reads %j as %j", (header, value) => {
    expect(readCookie(header)).toBe(value);
  });
});

describe("sign-in attempt keys", () => {
  it("are the email trimmed and lower-cased", () => {
    expect(attemptKey("  Ann@Example.COM ")).toBe("ann@example.com");
  });
});

describe("isShortIdClash", () => {
  it("goes by the constraint's name when the error has one", () => {
    const err = (constraint: string) =>
      Object.assign(
        new UniqueConstraintViolationException(
          new Error(`insert into "users" ("email", "short_id") values (...) - duplicate key ${constraint}`),
        ),
        { code: "23505", constraint },
      );
    expect(isShortIdClash(err("users_short_id_unique"))).toBe(true);
    expect(isShortIdClash(err("users_email_lower_index"))).toBe(false);
  });
});

describe("logged URLs", () => {
  it.each([
    ["/setup?token=abc", "/setup?token=[redacted]"],
    ["/api/v1/auth/setup?x=1&token=abc&y=2", "/api/v1/auth/setup?x=1&token=[redacted]&y=2"],
    ["/api/v1/transactions?limit=5", "/api/v1/transactions?limit=5"],
  ])("%s is logged as %s", (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });
});
