/**
 * A condition tree or action list that breaks the grammar. `path` names the
 * offending node ("and[1].or[0]", "actions[2]"); the domain turns it into a
 * VALIDATION_ERROR whose message is `${path}: ${problem}`.
 */
export class RuleValidationError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = "RuleValidationError";
  }
}

/** User input echoed in a message: bounded, so a huge value cannot flood a reply. */
export const shown = (v: unknown): string => {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
};

/** "a string", "an array", "null": what a value is, for "must be a number, got a string". */
export function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  return t === "object" ? "an object" : t === "undefined" ? "nothing" : `a ${t}`;
}
