import { createContextValues, type UnaryRequest } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { SystemService } from "../../gen/coffer/v1/system_pb.js";
import { TransactionService } from "../../gen/coffer/v1/transactions_pb.js";
import { kPrincipal } from "../../services/context.js";
import { authInterceptor } from "../../services/interceptors/auth.js";

// The entry guard (services/entry.ts) authenticates; the auth interceptor only
// makes sure no method that needs a key ever runs without what the guard found.

const call = (method: UnaryRequest["method"], principal?: boolean) => {
  const contextValues = createContextValues();
  if (principal) contextValues.set(kPrincipal, { kind: "system", name: "test" });
  const req = { method, contextValues } as unknown as UnaryRequest;
  return authInterceptor(() => Promise.resolve("ran" as never))(req);
};

describe("authInterceptor fails closed", () => {
  it("refuses a method that needs a key when no principal was resolved", async () => {
    await expect(call(TransactionService.method.listTransactions)).rejects.toThrow(/without an authorized principal/);
  });

  it("runs it with a principal, and a public method without one", async () => {
    await expect(call(TransactionService.method.listTransactions, true)).resolves.toBe("ran");
    await expect(call(SystemService.method.getVersion)).resolves.toBe("ran");
  });
});
