import { z } from "zod";
import { AMOUNT } from "../../common/money.js";
import { DATE, SLUG, SLUG_MAX } from "../../common/validation.js";

/**
 * Coffer's input formats (common/validation.ts) as zod schemas, for the
 * gateways' request definitions. MCP tools use them as they are; the REST
 * gateway turns them into JSON Schema (see querystringOf in rest/route.ts).
 * The core still judges meaning (a real calendar day, an existing slug).
 */

/** A category or tag slug. */
export const slug = z.string().regex(SLUG, `must be 1 to ${SLUG_MAX} characters of a-z, 0-9 and _`);

/** A date written YYYY-MM-DD. */
export const date = z.string().regex(DATE, "must be a date written YYYY-MM-DD");

/** A short id or a UUID; anything else is simply not found by the core. */
export const ref = z.string().min(1).max(64);

const SLUG_BODY = SLUG.source.replace(/^\^|\$$/g, "");
/** One slug or several separated by commas, spaces allowed around them: "trip" or "trip, work". */
const SLUG_LIST = new RegExp(`^\\s*${SLUG_BODY}(\\s*,\\s*${SLUG_BODY})*\\s*$`);

/** Slugs as one comma-separated string, or an array of them (a repeated query parameter). */
export const slugList = z.union(
  [
    z.string().max(2000).regex(SLUG_LIST, "must be a slug or comma-separated slugs"),
    z.array(z.string().max(2000).regex(SLUG_LIST, "must be a slug or comma-separated slugs")).max(50),
  ],
  { error: "must be a slug, comma-separated slugs, or an array of them" },
);

const AMOUNT_RULE = "must be a decimal number with at most 2 decimals";

/** An exact decimal amount as text ("12.34", "-5"): how REST query strings carry amounts. */
export const amountText = z.string().regex(AMOUNT, AMOUNT_RULE);

/**
 * An amount as text or as a JSON number (what an agent is likely to send).
 * A number is only checked here; filterOf turns it into its decimal string
 * with String(n), so no arithmetic ever happens on it.
 */
export const amountTextOrNumber = z.union([z.number().refine((n) => AMOUNT.test(String(n)), AMOUNT_RULE), amountText], {
  error: `${AMOUNT_RULE}, as a number or a string`,
});
