import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getOption, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { Scope, admin_only, required_scope } from "../../gen/coffer/v1/options_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { requiredScopeOf } from "../../services/interceptors/auth.js";

/** Every service of every generated coffer file, so a service added later is checked too. */
async function allServices(): Promise<DescService[]> {
  const root = fileURLToPath(new URL("../../gen/coffer/", import.meta.url));
  const services = new Map<string, DescService>();
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith("_pb.ts"));
  for (const file of files) {
    const mod = (await import(`../../gen/coffer/${file}`)) as Record<string, unknown>;
    for (const v of Object.values(mod)) {
      const d = v as { kind?: string; services?: DescService[] };
      if (d?.kind === "file") for (const s of d.services ?? []) services.set(s.typeName, s);
    }
  }
  return [...services.values()];
}

const services = await allServices();
const methods = services.flatMap((s) => s.methods.map((m) => [`${s.typeName}/${m.name}`, m] as const));
const isRead = (m: DescMethod) => /^(List|Get|Check|Find|Query|Preview|Count|Search)/.test(m.name);

describe("every RPC declares its scope in the proto", () => {
  it("finds the foundation services", () => {
    expect(services.map((s) => s.typeName)).toEqual(
      expect.arrayContaining([
        "coffer.v1.SystemService",
        "coffer.v1.ApiKeyService",
        "coffer.v1.DeviceCodeService",
        "coffer.v1.UserService",
      ]),
    );
    expect(methods.length).toBeGreaterThanOrEqual(15);
  });

  it.each(methods)("%s declares a required_scope", (_name, m) => {
    expect(getOption(m, required_scope)).not.toBe(Scope.UNSPECIFIED);
    expect(requiredScopeOf(m)).toBe(getOption(m, required_scope));
  });

  it.each(methods.filter(([, m]) => isRead(m)))("%s is a read: NO_SIDE_EFFECTS", (_name, m) => {
    expect(m.idempotency).toBe(MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS);
    expect(m.methodKind).toBe("unary");
  });

  // A read_only key may only read, so a read_only RPC must be free of side effects.
  it.each(methods.filter(([, m]) => getOption(m, required_scope) === Scope.READ_ONLY))(
    "%s (read_only) is NO_SIDE_EFFECTS",
    (_name, m) => {
      expect(m.idempotency).toBe(MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS);
    },
  );

  // Starting a device login is the one write anybody may do (docs/auth.md).
  const publicWrites = new Set(["coffer.v1.DeviceCodeService/CreateDeviceCode"]);
  it.each(methods.filter(([, m]) => /^(Create|Update|Delete|Revoke|Approve|Deny|Set|Add|Remove|Mark)/.test(m.name)))(
    "%s is a write: full_access and not NO_SIDE_EFFECTS",
    (name, m) => {
      expect(getOption(m, required_scope)).toBe(publicWrites.has(name) ? Scope.PUBLIC : Scope.FULL_ACCESS);
      expect(m.idempotency).not.toBe(MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS);
    },
  );

  it.each([
    ["coffer.v1.ApiKeyService/ListApiKeys", Scope.FULL_ACCESS], // sensitive read
    ["coffer.v1.ApiKeyService/GetCurrentKey", Scope.READ_ONLY],
    ["coffer.v1.DeviceCodeService/CreateDeviceCode", Scope.PUBLIC],
    ["coffer.v1.DeviceCodeService/PollDeviceCode", Scope.PUBLIC],
    ["coffer.v1.SystemService/GetVersion", Scope.PUBLIC],
    ["coffer.v1.SystemService/CheckReady", Scope.PUBLIC],
    ["coffer.v1.SystemService/GetDatabaseStatus", Scope.READ_ONLY],
    ["coffer.v1.UserService/ListUsers", Scope.READ_ONLY],
    ["coffer.v1.TransactionService/ListTransactions", Scope.READ_ONLY],
    ["coffer.v1.ReportService/ListReports", Scope.READ_ONLY],
    ["coffer.v1.ReportService/CountUnreadReports", Scope.READ_ONLY],
    ["coffer.v1.ReportService/GetReport", Scope.READ_ONLY],
    ["coffer.v1.ReportService/CreateReport", Scope.FULL_ACCESS],
    ["coffer.v1.ReportService/MarkReportRead", Scope.FULL_ACCESS],
    ["coffer.v1.ReportService/MarkReportUnread", Scope.FULL_ACCESS],
    ["coffer.v1.ReportService/MarkAllReportsRead", Scope.FULL_ACCESS],
    ["coffer.v1.ReportService/DeleteReport", Scope.FULL_ACCESS],
  ])("%s is %s", (name, scope) => {
    const m = methods.find(([n]) => n === name)?.[1];
    expect(m).toBeDefined();
    expect(getOption(m!, required_scope)).toBe(scope);
  });
});

describe("admin_only: what a console session needs the admin role for", () => {
  // Everything that hands out or manages access: an editor (full_access) could otherwise mint
  // a full_access key and manage logins with it.
  const ADMIN_ONLY = [
    "coffer.v1.LoginService/GetLogin",
    "coffer.v1.LoginService/CreateLogin",
    "coffer.v1.LoginService/UpdateLogin",
    "coffer.v1.LoginService/DeleteLogin",
    "coffer.v1.LoginService/ResetLoginPassword",
    "coffer.v1.ApiKeyService/ListApiKeys",
    "coffer.v1.ApiKeyService/CreateApiKey",
    "coffer.v1.ApiKeyService/RevokeApiKey",
    "coffer.v1.DeviceCodeService/ApproveDeviceCode",
    "coffer.v1.DeviceCodeService/DenyDeviceCode",
    "coffer.v1.UserService/CreateUser",
    "coffer.v1.UserService/UpdateUser",
    "coffer.v1.UserService/DeleteUser",
  ];

  it("is set on exactly the access-managing methods, all of them full_access", () => {
    const marked = methods.filter(([, m]) => getOption(m, admin_only)).map(([n]) => n);
    expect(marked.sort()).toEqual([...ADMIN_ONLY].sort());
    for (const [name, m] of methods)
      if (ADMIN_ONLY.includes(name)) expect(getOption(m, required_scope)).toBe(Scope.FULL_ACCESS);
  });

  it.each([
    ["coffer.v1.SessionService/GetSetupToken", Scope.PUBLIC],
    ["coffer.v1.SessionService/CompleteSetup", Scope.PUBLIC],
    ["coffer.v1.SessionService/Login", Scope.PUBLIC],
    ["coffer.v1.SessionService/Logout", Scope.PUBLIC],
    ["coffer.v1.SessionService/GetSession", Scope.READ_ONLY],
  ])("%s is %s", (name, scope) => {
    expect(getOption(methods.find(([n]) => n === name)![1], required_scope)).toBe(scope);
  });
});

describe("requiredScopeOf", () => {
  it("treats the standard gRPC health service as public", () => {
    for (const m of Health.methods) expect(requiredScopeOf(m)).toBe(Scope.PUBLIC);
  });

  it("fails closed: a method without the option needs full_access", () => {
    const unannotated = {
      name: "Forgot",
      parent: { typeName: "coffer.v1.NewService" },
      proto: {},
    } as unknown as DescMethod;
    expect(requiredScopeOf(unannotated)).toBe(Scope.FULL_ACCESS);
  });
});
