import { isErrorCode } from "../../common/errors.js";
import { HTTP_STATUS } from "../helpers/http-status.js";

/** What can be wrong with an answer. */
export type ProblemKind =
  | "5xx"
  | "no-answer"
  | "non-envelope"
  | "leak"
  | "state-change"
  | "internal-code"
  /** Cumulative mode: a keyed read that did not succeed after a burst of refused bodies. */
  | "refused-after-burst";

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

/** Internals an error message must never carry: a stack, a source path, SQL or the database's own words. */
const LEAKS: [string, RegExp][] = [
  ["a stack trace", /\n\s+at |\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/],
  // An absolute path of the machine (not a URL path a message echoes, such as /api/v1/categories/home).
  [
    "a source path",
    /\.(?:ts|js|mjs|cjs):\d+|node_modules|file:\/\/|(?:^|[\s"'(=])\/(?:work|home|usr|tmp|var|opt|root|srv)\//,
  ],
  [
    "SQL",
    /\bselect\b[^.]{0,80}\bfrom\b|\binsert into\b|\bupdate \w+ set\b|\bdelete from\b|\bwhere \w+ ?= ?\$\d|\?::\w+/i,
  ],
  // PostgreSQL's own sentences about a column or relation, not Coffer's ("names the column "Date"" of a CSV).
  [
    "a database error",
    /syntax error at or near|violates [\w ]*constraint|duplicate key value|invalid input syntax|relation "[^"]*" does not exist|column "[^"]*" (?:does not exist|of relation|is of type|specified)|SQLSTATE|\b(?:22P02|22008|23505|23503|42P01|42703)\b|PostgreSQL|MikroORM|DriverException|\bpg_\w+/i,
  ],
];

export function leaksIn(text: string): string | null {
  for (const [what, re] of LEAKS) {
    const m = re.exec(text);
    if (m) return `${what}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 80))}`;
  }
  return null;
}

/** An HTTP error answer of a gateway: JSON, exactly {error:{code,message}}, a known code with this status. */
export function envelopeProblems(status: number, contentType: string | undefined, body: Buffer): Problem[] {
  const text = body.toString("utf8");
  const bad = (why: string): Problem[] => [
    { kind: "non-envelope", detail: `${status} ${why}: ${JSON.stringify(text.slice(0, 200))}` },
  ];
  if (!/^application\/json/.test(contentType ?? "")) return bad(`content-type ${contentType ?? "none"}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return bad("body is not JSON");
  }
  const e = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (
    !parsed ||
    typeof parsed !== "object" ||
    Object.keys(parsed).join() !== "error" ||
    !e ||
    typeof e !== "object" ||
    Object.keys(e).sort().join() !== "code,message"
  )
    return bad("not exactly {error:{code,message}}");
  if (typeof e.code !== "string" || !isErrorCode(e.code)) return bad(`unknown code ${String(e.code)}`);
  if (typeof e.message !== "string" || e.message === "") return bad("empty message");
  if (HTTP_STATUS[e.code] !== status) return bad(`code ${e.code} is ${HTTP_STATUS[e.code]}, not ${status}`);
  const leak = leaksIn(e.message);
  return leak ? [{ kind: "leak", detail: `${e.code}: ${leak}` }] : [];
}

/** Status and envelope checks every gateway answer gets (HEAD answers carry no body to check). */
export function httpProblems(status: number, contentType: string | undefined, body: Buffer, method: string): Problem[] {
  if (status === 0) return [{ kind: "no-answer", detail: "the connection closed or stalled without an answer" }];
  const out: Problem[] = [];
  if (status >= 500) out.push({ kind: "5xx", detail: `${status} ${body.toString("utf8").slice(0, 300)}` });
  if (status >= 400 && method !== "HEAD") out.push(...envelopeProblems(status, contentType, body));
  return out;
}

/** Counts of one fuzz run, printed at the end. */
export class Tally {
  readonly byStatus = new Map<string, number>();
  readonly problems = new Map<ProblemKind, number>();
  readonly failures: { index: number; problems: Problem[]; request: string }[] = [];
  /** Failures by where they happened and how (one line each, however many cases and past the 50 kept above). */
  readonly distinct = new Map<string, { count: number; first: number }>();
  /** The REST routes, MCP tools and core methods the cases went to. */
  readonly covered = new Set<string>();
  cases = 0;
  checksums = 0;

  record(index: number, label: string, problems: Problem[], describe: () => string, target?: string, where?: string) {
    this.cases++;
    if (target) this.covered.add(target);
    if (problems.length) {
      const key = `${where ?? target ?? "?"} → ${label}: ${[...new Set(problems.map((p) => p.kind))].join(", ")}`;
      const d = this.distinct.get(key);
      if (d) d.count++;
      else this.distinct.set(key, { count: 1, first: index });
    }
    this.byStatus.set(label, (this.byStatus.get(label) ?? 0) + 1);
    for (const p of problems) this.problems.set(p.kind, (this.problems.get(p.kind) ?? 0) + 1);
    if (problems.length && this.failures.length < 50) this.failures.push({ index, problems, request: describe() });
  }

  /** Problems found between cases (a checksum after a round), counted without counting a case. */
  fail(index: number, problems: Problem[], request: string) {
    for (const p of problems) this.problems.set(p.kind, (this.problems.get(p.kind) ?? 0) + 1);
    if (this.failures.length < 50) this.failures.push({ index, problems, request });
  }

  count(kind: ProblemKind) {
    return this.problems.get(kind) ?? 0;
  }
}
