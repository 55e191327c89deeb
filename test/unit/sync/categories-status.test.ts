import { describe, expect, it } from "vitest";
import { CofferError } from "../../../services/errors/coffer-error.js";
import { CATEGORY_TAXONOMY } from "../../../services/ledger/taxonomy.js";
import { mappedCategorySlug } from "../../../services/sync/category-map.js";
import { CredentialsUnreadable } from "../../../services/sync/credentials.js";
import { ProviderError } from "../../../services/sync/providers/provider.js";
import { classifyFailure, isTransient, statusAfterFailure } from "../../../services/sync/status.js";

const SLUGS = new Set(CATEGORY_TAXONOMY.flatMap((p) => [p.slug, ...p.children.map((c) => c.slug)]));
const byName = (t: string) =>
  SLUGS.has(t.toLowerCase()) ? t.toLowerCase() : t === "Groceries" ? "food_and_drink_groceries" : null;

describe("mappedCategorySlug", () => {
  it.each([
    ["plaid", "FOOD_AND_DRINK", "FOOD_AND_DRINK_COFFEE", "food_and_drink_coffee"],
    ["plaid", "FOOD_AND_DRINK", "FOOD_AND_DRINK_VENDING_MACHINES", "food_and_drink"],
    ["plaid", "INCOME", "INCOME_SALARY", "income_salary"],
    ["plaid", "LOAN_PAYMENTS", "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", "transfers_credit_card_payment"],
    ["plaid", "LOAN_DISBURSEMENTS", "LOAN_DISBURSEMENTS_OTHER_DISBURSEMENT", "transfers_in"],
    ["plaid", "OTHER", "OTHER_OTHER", null],
    ["plaid", "BRAND_NEW", "BRAND_NEW_THING", null],
    ["plaid", null, null, null],
    ["teller", "groceries", null, "food_and_drink_groceries"],
    ["teller", "Dining", null, "food_and_drink_restaurants"],
    ["teller", "general", null, null],
    ["csv", "Groceries", null, "food_and_drink_groceries"],
    ["simplefin", "travel_flights", null, "travel_flights"],
    ["csv", "whatever", null, null],
  ] as const)("%s %s/%s → %s", (provider, primary, detailed, want) => {
    expect(mappedCategorySlug(provider, primary, detailed, byName)).toBe(want);
  });

  it("maps only onto categories the seeded taxonomy has", () => {
    const codes = [
      "INCOME",
      "TRANSFER_IN",
      "TRANSFER_OUT",
      "LOAN_PAYMENTS",
      "BANK_FEES",
      "ENTERTAINMENT",
      "FOOD_AND_DRINK",
      "GENERAL_MERCHANDISE",
      "HOME_IMPROVEMENT",
      "MEDICAL",
      "PERSONAL_CARE",
      "GENERAL_SERVICES",
      "GOVERNMENT_AND_NON_PROFIT",
      "TRANSPORTATION",
      "TRAVEL",
      "RENT_AND_UTILITIES",
    ];
    for (const p of codes) {
      const slug = mappedCategorySlug("plaid", p, null, byName);
      expect(slug === null || SLUGS.has(slug), `${p} → ${slug}`).toBe(true);
    }
  });
});

describe("the status machine", () => {
  it.each([
    [new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", "log in"), "pending_reauth", false],
    [new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "503"), "error", true],
    [new ProviderError("rate_limited", "RATE_LIMITED", "429"), "error", true],
    [new ProviderError("revoked", "ACCESS_REVOKED", "gone"), "error", false],
    [new ProviderError("misconfigured", "INVALID_API_KEYS", "bad keys"), "error", false],
    [new ProviderError("invalid_input", "CSV_EMPTY", "empty"), "error", false],
  ])("%s → %s (retried: %s)", (e, status, retried) => {
    const f = classifyFailure(e);
    expect(statusAfterFailure(f)).toEqual({ status, errorCode: e.code, errorMessage: e.message });
    expect(isTransient(f)).toBe(retried);
  });

  it("names unreadable credentials, a missing key and unexpected failures without their internals", () => {
    expect(classifyFailure(new CredentialsUnreadable())).toMatchObject({ code: "CREDENTIALS_UNREADABLE" });
    expect(classifyFailure(new CofferError("ENCRYPTION_KEY_MISSING", "no key"))).toMatchObject({
      failure: "misconfigured",
      code: "ENCRYPTION_KEY_MISSING",
    });
    expect(classifyFailure(new TypeError("x is undefined"))).toEqual({
      failure: "internal",
      code: "SYNC_FAILED",
      message: "The sync failed unexpectedly; the core's log says why",
    });
    expect(classifyFailure(Object.assign(new Error("gone"), { code: "ECONNREFUSED" }))).toMatchObject({
      failure: "unavailable",
      code: "DATABASE_UNAVAILABLE",
    });
  });
});
