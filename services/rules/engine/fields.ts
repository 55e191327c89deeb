import { dayOfMonth, dayOfWeek, dayOfYear, monthOf } from "../../../common/days.js";
import { loweredField as lowered, type TransactionContext as Ctx } from "./context.js";

/**
 * The fields a condition may name, each with its value kind (which decides
 * the operators it takes) and how to read it from a context. One table: the
 * validator, the evaluator, the context loader's projection and the docs all
 * follow it.
 */

export type FieldClass = "raw" | "surrogate" | "date" | "display";

/** How a numeric field's values are written and compared. */
export type NumberUnit =
  /** Amounts: exact decimals with at most 2 places, compared as integer cents. */
  | { kind: "cents" }
  /** Date parts: whole numbers in a range. */
  | { kind: "integer"; min: number; max: number }
  /** Metadata numbers: any finite JSON number. */
  | { kind: "real" };

interface Base {
  name: string;
  class: FieldClass;
}

export interface StringField extends Base {
  kind: "string";
  /** Identifiers (short ids) compare exactly; every other string case-insensitively. */
  exact: boolean;
  /** undefined = unknown; null = no value (read as ""). */
  get(ctx: Ctx): string | null | undefined;
  /** The value lower-cased (cached per context); only called when get() is defined. */
  lower(ctx: Ctx): string;
}

export interface NumberField extends Base {
  kind: "number";
  unit: NumberUnit;
  get(ctx: Ctx): number | undefined;
}

export interface BooleanField extends Base {
  kind: "boolean";
  get(ctx: Ctx): boolean | undefined;
}

export interface TagsField extends Base {
  kind: "tags";
  get(ctx: Ctx): readonly string[] | undefined;
}

export interface MetadataField extends Base {
  kind: "metadata";
  key: string;
  /** undefined = unknown (no metadata in the context); else whether the key is there and its value. */
  get(ctx: Ctx): { present: boolean; value: unknown } | undefined;
}

export type Field = StringField | NumberField | BooleanField | TagsField | MetadataField;
export type ValueKind = Field["kind"];

function str(name: string, cls: FieldClass, get: (ctx: Ctx) => string | null | undefined, exact = false): StringField {
  return { name, class: cls, kind: "string", exact, get, lower: (ctx) => lowered(ctx, name, get(ctx) ?? "") };
}

function num(name: string, cls: FieldClass, unit: NumberUnit, get: (ctx: Ctx) => number | undefined): NumberField {
  return { name, class: cls, kind: "number", unit, get };
}

function bool(name: string, cls: FieldClass, get: (ctx: Ctx) => boolean | undefined): BooleanField {
  return { name, class: cls, kind: "boolean", get };
}

const datePart = (f: (day: number) => number) => (ctx: Ctx) => (ctx.day === undefined ? undefined : f(ctx.day));

const FIELD_LIST: Field[] = [
  // Raw, immutable after import: what rules should match on.
  str("provider_name", "raw", (c) => c.providerName),
  str("provider_merchant_name", "raw", (c) => c.providerMerchantName),
  num("amount", "raw", { kind: "cents" }, (c) => c.amountCents),
  str("provider_category_primary", "raw", (c) => c.providerCategoryPrimary),
  str("provider_category_detailed", "raw", (c) => c.providerCategoryDetailed),
  bool("pending", "raw", (c) => c.pending),
  str("provider", "raw", (c) => c.provider),
  // Stable surrogates (short ids).
  str("account_id", "surrogate", (c) => c.accountId, true),
  str("user_id", "surrogate", (c) => c.userId, true),
  // Derived from the transaction date.
  num("day_of_month", "date", { kind: "integer", min: 1, max: 31 }, datePart(dayOfMonth)),
  num("month", "date", { kind: "integer", min: 1, max: 12 }, datePart(monthOf)),
  num("day_of_week", "date", { kind: "integer", min: 1, max: 7 }, datePart(dayOfWeek)),
  num("day_of_year", "date", { kind: "integer", min: 1, max: 366 }, datePart(dayOfYear)),
  // Mutable display values: for chaining rules, not as the primary match.
  str("account_name", "display", (c) => c.accountName),
  str("user_name", "display", (c) => c.userName),
  str("category", "display", (c) => c.category),
  { name: "tags", class: "display", kind: "tags", get: (c) => c.tags },
  str("series", "display", (c) => c.series, true),
  bool("in_series", "display", (c) => c.inSeries),
  str("counterparty", "display", (c) => c.counterparty),
  bool("has_counterparty", "display", (c) => (c.counterparty === undefined ? undefined : c.counterparty !== null)),
];

export const FIELDS: ReadonlyMap<string, Field> = new Map(FIELD_LIST.map((f) => [f.name, f]));

export const METADATA_PREFIX = "metadata.";
/** Metadata keys as transactions store them (services/ledger/transactions/metadata.ts). */
export const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/** Every field name a condition may use, for messages and docs ("metadata.<key>" last). */
export const FIELD_NAMES: readonly string[] = [...FIELDS.keys(), `${METADATA_PREFIX}<key>`];

function metadataField(key: string): MetadataField {
  return {
    name: `${METADATA_PREFIX}${key}`,
    class: "display",
    kind: "metadata",
    key,
    get(ctx) {
      const m = ctx.metadata;
      if (m === undefined) return undefined;
      const present = Object.prototype.hasOwnProperty.call(m, key);
      return { present, value: present ? m[key] : undefined };
    },
  };
}

/** The field a condition names, or null when there is no such field (or the metadata key is malformed). */
export function fieldNamed(name: string): Field | null {
  const f = FIELDS.get(name);
  if (f) return f;
  if (name.startsWith(METADATA_PREFIX)) {
    const key = name.slice(METADATA_PREFIX.length);
    return METADATA_KEY.test(key) ? metadataField(key) : null;
  }
  return null;
}
