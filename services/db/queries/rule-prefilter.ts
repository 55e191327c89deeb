import { centsOf, formatCents } from "../../../common/money.js";
import type { RULE_FIELDS, RuleFieldName } from "../../../common/rule-grammar.js";
import type { CompiledConditions, ConditionNode, LeafNode } from "../../rules/engine/index.js";
import { containsPattern } from "../search-patterns.js";
import { pgArray } from "../sql.js";
import type { TransactionPredicate } from "./transaction-filter.js";

/**
 * A SQL predicate that narrows the transactions a scan reads to a superset
 * of those the conditions can match, so indexes do the bulk of the work
 * (the trigram index on search_text for names, btree for amounts, GIN for
 * tags). It never decides: every candidate still goes through the evaluator.
 * So it only translates what it can translate without ever excluding a
 * match, and gives up (null: no narrowing) otherwise: under `not`, in an
 * `or` with an untranslatable branch, for regular expressions, and for
 * names with non-ASCII text, where PostgreSQL's and JavaScript's case
 * folding might differ. For ASCII text both fold A-Z alike, and PostgreSQL
 * folds no non-ASCII letter to something JavaScript would not, so the
 * database's match set contains the evaluator's.
 */
type Prefilter = TransactionPredicate;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** An amount as the canonical decimal text PostgreSQL compares exactly with a numeric. */
const amountOf = (v: unknown) => formatCents(centsOf(String(v)));

/**
 * search_text is lower(provider_name) || chr(31) || lower(merchant name or ''):
 * a term in the name comes before the separator, one in the merchant name after it.
 */
function nameText(leaf: LeafNode, term: string): Prefilter | null {
  const lowered = term.toLowerCase();
  if (!PRINTABLE_ASCII.test(lowered)) return null;
  const like = containsPattern(lowered);
  const pattern = leaf.field.name === "provider_name" ? `${like}\u001f%` : `%\u001f${like}`;
  return { sql: "t.search_text like ?", params: [pattern] };
}

/** The grammar's fields derived from the date (class "date"). */
type DatePartField = Extract<(typeof RULE_FIELDS)[number], { class: "date" }>["name"];

/** The same date parts in PostgreSQL: whole numbers, ISO weekday 1 = Monday, as the engine computes them. */
const DATE_PART: Record<DatePartField, string> = {
  day_of_month: "extract(day from t.date)",
  month: "extract(month from t.date)",
  day_of_week: "extract(isodow from t.date)",
  day_of_year: "extract(doy from t.date)",
};

const COMPARE: Record<string, string> = { eq: "=", neq: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" };

function datePart(expr: string, leaf: LeafNode["leaf"]): Prefilter | null {
  const n = (v: unknown) => Number(v);
  if (COMPARE[leaf.op]) return { sql: `${expr} ${COMPARE[leaf.op]} ?`, params: [n(leaf.value)] };
  if (leaf.op === "between") return { sql: `${expr} between ? and ?`, params: [n(leaf.min), n(leaf.max)] };
  if (leaf.op === "approx") {
    const v = n(leaf.value);
    const tol = n(leaf.tolerance);
    return { sql: `${expr} between ? and ?`, params: [v - tol, v + tol] };
  }
  return null;
}

function leafFilter(node: LeafNode): Prefilter | null {
  const { leaf, op } = node;
  // The grammar's names: a field renamed there fails to compile here. metadata.<key> falls to default.
  switch (node.field.name as RuleFieldName) {
    case "provider_name":
    case "provider_merchant_name":
      if ((op === "contains" || op === "eq") && typeof leaf.value === "string" && leaf.value !== "") {
        return nameText(node, leaf.value);
      }
      return null;
    case "amount": {
      if (COMPARE[op]) return { sql: `t.amount ${COMPARE[op]} ?::numeric`, params: [amountOf(leaf.value)] };
      if (op === "between") {
        return { sql: "t.amount between ?::numeric and ?::numeric", params: [amountOf(leaf.min), amountOf(leaf.max)] };
      }
      if (op === "approx") {
        const v = centsOf(String(leaf.value));
        const tol = centsOf(String(leaf.tolerance));
        return {
          sql: "t.amount between ?::numeric and ?::numeric",
          params: [formatCents(v - tol), formatCents(v + tol)],
        };
      }
      return null;
    }
    case "pending":
      return { sql: op === "eq" ? "t.pending = ?" : "t.pending <> ?", params: [leaf.value] };
    case "day_of_month":
    case "month":
    case "day_of_week":
    case "day_of_year":
      return datePart(DATE_PART[node.field.name as DatePartField], leaf);
    case "tags": {
      const slugs = (Array.isArray(leaf.value) ? leaf.value : [leaf.value]).map((s) => String(s).trim().toLowerCase());
      if (op === "contains") {
        // An unknown slug gives array[null], which no row contains (as the evaluator says).
        return { sql: "t.tag_ids @> array[(select id from tags where slug = ?)]", params: [slugs[0]] };
      }
      if (op === "in") {
        return { sql: "t.tag_ids && array(select id from tags where slug = any(?::text[]))", params: [pgArray(slugs)] };
      }
      return null;
    }
    default:
      return null;
  }
}

function nodeFilter(node: ConditionNode): Prefilter | null {
  switch (node.kind) {
    case "leaf":
      return leafFilter(node);
    case "not":
      return null;
    case "and": {
      const parts = node.nodes.map(nodeFilter).filter((p): p is Prefilter => p !== null);
      if (parts.length === 0) return null;
      return { sql: parts.map((p) => `(${p.sql})`).join(" and "), params: parts.flatMap((p) => p.params) };
    }
    case "or": {
      const parts = node.nodes.map(nodeFilter);
      if (parts.some((p) => p === null)) return null;
      const ok = parts as Prefilter[];
      return { sql: ok.map((p) => `(${p.sql})`).join(" or "), params: ok.flatMap((p) => p.params) };
    }
  }
}

/** The narrowing predicate over transactions `t`, or null when the conditions allow none. */
export function prefilter(conditions: CompiledConditions): Prefilter | null {
  return conditions.root === null ? null : nodeFilter(conditions.root);
}
