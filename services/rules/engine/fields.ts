import { dayOfMonth, dayOfWeek, dayOfYear, monthOf } from "../../../common/days.js";
import { loweredField as lowered, type TransactionContext as Ctx } from "./context.js";

/**
 * The fields a condition may name, as the engine reads them: the grammar
 * (common/rule-grammar.ts) says what each field is, its value kind and unit;
 * this module says how to read it from a context. The validator, the
 * evaluator and the context loader's projection follow this table.
 */

import {
  METADATA_KEY,
  METADATA_PREFIX,
  RULE_FIELDS,
  type FieldClass,
  type GrammarField,
  type NumberUnit,
  type RuleFieldName,
} from "../../../common/rule-grammar.js";

export type { FieldClass, NumberUnit, ValueKind } from "../../../common/rule-grammar.js";
export { FIELD_NAMES, METADATA_KEY, METADATA_PREFIX } from "../../../common/rule-grammar.js";

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

const datePart = (f: (day: number) => number) => (ctx: Ctx) => (ctx.day === undefined ? undefined : f(ctx.day));

/** How each named field is read from a context (undefined: the context does not hold it). */
const READ = {
  provider_name: (c) => c.providerName,
  provider_merchant_name: (c) => c.providerMerchantName,
  amount: (c) => c.amountCents,
  provider_category_primary: (c) => c.providerCategoryPrimary,
  provider_category_detailed: (c) => c.providerCategoryDetailed,
  pending: (c) => c.pending,
  provider: (c) => c.provider,
  account_id: (c) => c.accountId,
  user_id: (c) => c.userId,
  day_of_month: datePart(dayOfMonth),
  month: datePart(monthOf),
  day_of_week: datePart(dayOfWeek),
  day_of_year: datePart(dayOfYear),
  account_name: (c) => c.accountName,
  user_name: (c) => c.userName,
  category: (c) => c.category,
  tags: (c) => c.tags,
  series: (c) => c.series,
  in_series: (c) => c.inSeries,
  counterparty: (c) => c.counterparty,
  has_counterparty: (c) => (c.counterparty === undefined ? undefined : c.counterparty !== null),
} satisfies Record<RuleFieldName, (ctx: Ctx) => unknown>;

/** One grammar field with its reader. The grammar's kind says which reader type READ holds for it. */
function fieldOf(g: GrammarField & { name: RuleFieldName }): Field {
  const base = { name: g.name, class: g.class };
  const read = READ[g.name] as (ctx: Ctx) => never;
  switch (g.kind) {
    case "string":
      return {
        ...base,
        kind: "string",
        exact: g.exact === true,
        get: read,
        lower: (ctx) => lowered(ctx, g.name, read(ctx) ?? ""),
      };
    case "number":
      return { ...base, kind: "number", unit: g.unit ?? { kind: "real" }, get: read };
    case "boolean":
      return { ...base, kind: "boolean", get: read };
    case "tags":
      return { ...base, kind: "tags", get: read };
    case "metadata":
      throw new Error(`${g.name}: metadata fields are named by key, not listed`);
  }
}

export const FIELDS: ReadonlyMap<string, Field> = new Map(RULE_FIELDS.map((g) => [g.name, fieldOf(g)]));

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
