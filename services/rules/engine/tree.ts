import { checkCharacters } from "../../../common/text.js";
import { loweredField, type TransactionContext } from "./context.js";
import { RuleValidationError, kindOf, shown } from "./errors.js";
import { FIELD_NAMES, fieldNamed, type Field, type ValueKind } from "./fields.js";
import { MAX_DEPTH, OPERATORS } from "../../../common/rule-grammar.js";
import { compileBoolean } from "./operators/boolean.js";
import { refuse, type Leaf, type Where } from "./operators/leaf.js";
import { compileMetadata, metadataText } from "./operators/metadata.js";
import { compileNumber } from "./operators/number.js";
import { compileString } from "./operators/string.js";
import { compileTags } from "./operators/tags.js";

/**
 * The condition grammar: validation and compilation in one walk. A tree is
 * `{}` (every transaction), a leaf `{field, op, value}` (plus `tolerance` for
 * approx, `min` and `max` for between, no value for exists/not_exists), or a
 * combinator `{and: [...]}`, `{or: [...]}`, `{not: {...}}`. Compiling checks
 * every node and builds each leaf's test once (lower-cased values, RE2
 * objects, cents), so evaluating never parses anything again.
 */

export { MAX_DEPTH };
/** Most nodes (leaves and combinators) in one tree. */
export const MAX_NODES = 500;

/** Three-valued: a condition on a field the context does not hold is UNKNOWN (see evaluate.ts). */
export const FALSE = 0;
export const TRUE = 1;
export const UNKNOWN = 2;
export type Truth = typeof FALSE | typeof TRUE | typeof UNKNOWN;

export type LeafTest = (ctx: TransactionContext) => Truth;

export type ConditionNode =
  | { kind: "and"; nodes: ConditionNode[] }
  | { kind: "or"; nodes: ConditionNode[] }
  | { kind: "not"; node: ConditionNode }
  | LeafNode;

export interface LeafNode {
  kind: "leaf";
  field: Field;
  op: string;
  leaf: Leaf;
  test: LeafTest;
  /** Where the leaf is ("and[1].or[0]"), for messages about it. */
  path: string;
  /** The object the leaf was compiled from (the caller's tree), for callers that rewrite values. */
  source: Record<string, unknown>;
}

export interface CompiledConditions {
  /** null for `{}`, which matches every transaction. */
  root: ConditionNode | null;
  /** The field names the tree reads ("metadata.<key>" as written). */
  fields: ReadonlySet<string>;
}

const ALL_OPS = new Set(Object.values(OPERATORS).flat());
const KIND_NAME: Record<ValueKind, string> = {
  string: "string",
  number: "numeric",
  boolean: "boolean",
  tags: "tags",
  metadata: "metadata",
};

const COMBINATORS = ["and", "or", "not"] as const;
const LEAF_KEYS = new Set(["field", "op", "value", "tolerance", "min", "max"]);
const SHAPE = "a condition is {field, op, value} or one of {and: [...]}, {or: [...]}, {not: {...}}";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const child = (path: string, segment: string) => (path === "" ? segment : `${path}.${segment}`);
const label = (path: string) => (path === "" ? "conditions" : path);

class Compiler {
  private nodes = 0;
  readonly fields = new Set<string>();

  node(raw: unknown, path: string, depth: number): ConditionNode {
    const at = label(path);
    if (!isObject(raw)) throw new RuleValidationError(at, `a condition must be an object, got ${kindOf(raw)}`);
    const keys = Object.keys(raw);
    if (keys.length === 0) {
      throw new RuleValidationError(
        at,
        "an empty condition {} is only allowed as the whole tree (it matches everything)",
      );
    }
    if (depth > MAX_DEPTH) throw new RuleValidationError(at, `conditions may nest at most ${MAX_DEPTH} levels deep`);
    if (++this.nodes > MAX_NODES)
      throw new RuleValidationError(at, `a condition tree may have at most ${MAX_NODES} nodes`);

    const combinator = COMBINATORS.find((c) => c in raw);
    if (combinator) {
      if (keys.length > 1) {
        throw new RuleValidationError(
          at,
          `a combinator has exactly one key (${combinator}), found ${keys.map((k) => shown(k)).join(", ")}`,
        );
      }
      const value = raw[combinator];
      if (combinator === "not") return { kind: "not", node: this.node(value, child(path, "not"), depth + 1) };
      if (!Array.isArray(value)) {
        throw new RuleValidationError(at, `${combinator} must be an array of conditions, got ${kindOf(value)}`);
      }
      if (value.length === 0) throw new RuleValidationError(at, `${combinator} must list at least one condition`);
      const nodes = value.map((v, i) => this.node(v, child(path, `${combinator}[${i}]`), depth + 1));
      return { kind: combinator, nodes };
    }
    return this.leaf(raw, at);
  }

  private leaf(raw: Record<string, unknown>, at: string): ConditionNode {
    const unknownKey = Object.keys(raw).find((k) => !LEAF_KEYS.has(k));
    if (unknownKey !== undefined) throw new RuleValidationError(at, `unknown key ${shown(unknownKey)}; ${SHAPE}`);
    if (raw.field === undefined) throw new RuleValidationError(at, `field is required; ${SHAPE}`);
    if (typeof raw.field !== "string")
      throw new RuleValidationError(at, `field must be a string, got ${kindOf(raw.field)}`);
    const field = fieldNamed(raw.field);
    if (!field) {
      throw new RuleValidationError(at, `unknown field ${shown(raw.field)}; fields are ${FIELD_NAMES.join(", ")}`);
    }
    if (raw.op === undefined) throw new RuleValidationError(at, "op is required");
    if (typeof raw.op !== "string") throw new RuleValidationError(at, `op must be a string, got ${kindOf(raw.op)}`);
    const op = raw.op;
    if (!ALL_OPS.has(op)) throw new RuleValidationError(at, `unknown operator ${shown(op)}`);
    if (!OPERATORS[field.kind].includes(op)) {
      throw new RuleValidationError(
        at,
        `operator ${shown(op)} is not valid for ${KIND_NAME[field.kind]} field ${shown(field.name)}`,
      );
    }
    const leaf: Leaf = { ...raw, field: field.name, op };
    const where: Where = { path: at, field: field.name };
    checkOperands(leaf, where);
    checkOperandText(leaf, where);
    this.fields.add(field.name);
    return { kind: "leaf", field, op, leaf, test: leafTest(field, op, leaf, where), path: at, source: raw };
  }
}

/** Which of value, tolerance, min and max this operator takes, and nothing else. */
function checkOperands(leaf: Leaf, where: Where): void {
  const { op } = leaf;
  const takesValue = op !== "between" && op !== "exists" && op !== "not_exists";
  if (takesValue && leaf.value === undefined) refuse(where, `operator ${shown(op)} needs a value`);
  if (!takesValue && leaf.value !== undefined) {
    refuse(
      where,
      op === "between" ? `operator "between" takes min and max, not value` : `operator ${shown(op)} takes no value`,
    );
  }
  if (leaf.tolerance !== undefined && op !== "approx") refuse(where, `tolerance only goes with operator "approx"`);
  if ((leaf.min !== undefined || leaf.max !== undefined) && op !== "between") {
    refuse(where, `min and max only go with operator "between"`);
  }
}

/**
 * Every string a leaf compares with is stored with the rule, so it follows the
 * text rule (common/text.ts) wherever it sits: a value, an `in` list's items.
 */
function checkOperandText(leaf: Leaf, where: Where): void {
  for (const key of ["value", "tolerance", "min", "max"] as const) {
    const operand = leaf[key];
    const items: [string, unknown][] = Array.isArray(operand)
      ? operand.map((v: unknown, i) => [`${key}[${i}]`, v])
      : [[key, operand]];
    for (const [name, v] of items) {
      if (typeof v !== "string") continue;
      const r = checkCharacters(v, name, true);
      if (!r.ok) refuse(where, r.message);
    }
  }
}

const truth = (b: boolean): Truth => (b ? TRUE : FALSE);

function leafTest(field: Field, op: string, leaf: Leaf, where: Where): LeafTest {
  switch (field.kind) {
    case "string": {
      const t = compileString(op, leaf, where, field.exact);
      return t.folded
        ? (ctx) => (field.get(ctx) === undefined ? UNKNOWN : truth(t.test(field.lower(ctx))))
        : (ctx) => {
            const v = field.get(ctx);
            return v === undefined ? UNKNOWN : truth(t.test(v ?? ""));
          };
    }
    case "number": {
      const t = compileNumber(op, leaf, field.unit, where);
      return (ctx) => {
        const v = field.get(ctx);
        return v === undefined ? UNKNOWN : truth(t(v));
      };
    }
    case "boolean": {
      const t = compileBoolean(op, leaf, where);
      return (ctx) => {
        const v = field.get(ctx);
        return v === undefined ? UNKNOWN : truth(t(v));
      };
    }
    case "tags": {
      const t = compileTags(op, leaf, where);
      return (ctx) => {
        const v = field.get(ctx);
        return v === undefined ? UNKNOWN : truth(t(v));
      };
    }
    case "metadata": {
      const t = compileMetadata(op, leaf, field, where);
      return (ctx) => {
        const m = field.get(ctx);
        if (m === undefined) return UNKNOWN;
        return truth(t(m.present, m.value, () => loweredField(ctx, field.name, metadataText(m.present, m.value))));
      };
    }
  }
}

/**
 * Validates and compiles a condition tree; throws RuleValidationError naming
 * the first bad node ("and[1].or[0]: operator "gt" is not valid for string
 * field "provider_name"").
 */
export function compileConditions(raw: unknown): CompiledConditions {
  if (isObject(raw) && Object.keys(raw).length === 0) return { root: null, fields: new Set() };
  const c = new Compiler();
  const root = c.node(raw, "", 1);
  return { root, fields: c.fields };
}

/** The leaves of a tree, depth first (for callers that rewrite or inspect values). */
export function* leavesOf(node: ConditionNode | null): Generator<LeafNode> {
  if (node === null) return;
  switch (node.kind) {
    case "leaf":
      yield node;
      return;
    case "not":
      yield* leavesOf(node.node);
      return;
    default:
      for (const n of node.nodes) yield* leavesOf(n);
  }
}
