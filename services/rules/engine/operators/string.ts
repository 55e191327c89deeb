import RE2 from "re2";
import { listValue, refuse, stringValue, type Leaf, type Where } from "./leaf.js";

/**
 * String operators. eq, neq, contains, not_contains and in compare
 * case-insensitively (both sides lower-cased); matches is an RE2 regular
 * expression, unanchored and case-sensitive unless it says (?i). A field
 * without a value (a null merchant name, an absent metadata key) reads as "".
 */

export interface StringTest {
  /** Whether `test` takes the lower-cased value. */
  folded: boolean;
  test(s: string): boolean;
}

/**
 * Distinct inputs whose RE2 answer a compiled `matches` remembers: names
 * repeat across transactions, and a call into RE2 costs far more than a map
 * lookup. Bounded (the memo starts over when full); a compiled rule lives
 * for one request or one sync page.
 */
const MATCH_MEMO = 262_144;

/** An RE2 pattern, or the validation error RE2 gives (a backreference, a lookahead, a bad repetition …). */
export function compilePattern(where: Where, pattern: string): RE2 {
  try {
    return new RE2(pattern);
  } catch (e) {
    return refuse(where, `value is not an RE2 regular expression: ${(e as Error).message}`);
  }
}

function memoized(re: RE2): (s: string) => boolean {
  let memo = new Map<string, boolean>();
  return (s) => {
    let hit = memo.get(s);
    if (hit === undefined) {
      hit = re.test(s);
      if (memo.size >= MATCH_MEMO) memo = new Map();
      memo.set(s, hit);
    }
    return hit;
  };
}

/**
 * `exact` (identifier fields) compares the text as it is; otherwise both the
 * value and the field are lower-cased (`folded`: the caller passes the
 * lower-cased field).
 */
export function compileString(op: string, leaf: Leaf, where: Where, exact = false): StringTest {
  const norm = exact ? (s: string) => s : (s: string) => s.toLowerCase();
  const folded = !exact;
  switch (op) {
    case "eq": {
      const v = norm(stringValue(where, op, leaf.value));
      return { folded, test: (s) => s === v };
    }
    case "neq": {
      const v = norm(stringValue(where, op, leaf.value));
      return { folded, test: (s) => s !== v };
    }
    case "contains": {
      const v = norm(stringValue(where, op, leaf.value));
      return { folded, test: (s) => s.includes(v) };
    }
    case "not_contains": {
      const v = norm(stringValue(where, op, leaf.value));
      return { folded, test: (s) => !s.includes(v) };
    }
    case "matches":
      return { folded: false, test: memoized(compilePattern(where, stringValue(where, op, leaf.value))) };
    case "in": {
      const values = listValue(where, op, leaf.value).map((v, i) => norm(stringValue(where, op, v, `value[${i}]`)));
      const set = new Set(values);
      return { folded, test: (s) => set.has(s) };
    }
    default:
      throw new Error(`not a string operator: ${op}`);
  }
}
