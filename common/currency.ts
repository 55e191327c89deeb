import currencyCodes from "currency-codes";

/**
 * The ISO 4217 currency codes Coffer accepts in a request: the active codes of
 * ISO 4217 list one (the currency-codes package, funds and metals included),
 * plus the codes that took effect after the package's copy of the list.
 */
const LATER_CODES = [
  "XCG", // Caribbean guilder, replacing ANG from 2025-03-31
];

const CODES: ReadonlySet<string> = new Set([...currencyCodes.codes(), ...LATER_CODES]);

/** True for an ISO 4217 code, written upper-case ("USD"; not "usd", "NAN" or "XYZ"). */
export const isCurrencyCode = (code: string) => CODES.has(code);
