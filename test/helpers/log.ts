import type { FailureLog } from "../../gateways/shared/error-map.js";

export interface LoggedEntry {
  level: "error" | "warn";
  obj: Record<string, unknown>;
  msg: string;
}

/** A FailureLog that keeps what it is told, for tests that assert a failure was logged. */
export function recordingLog(): FailureLog & { entries: LoggedEntry[] } {
  const entries: LoggedEntry[] = [];
  return {
    entries,
    error: (obj, msg) => void entries.push({ level: "error", obj: obj as Record<string, unknown>, msg }),
    warn: (obj, msg) => void entries.push({ level: "warn", obj: obj as Record<string, unknown>, msg }),
  };
}

/** A pino destination that keeps every JSON line a fastify app logs (pass as logStream, with logger on). */
export function logLines(): { write(line: string): void; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { lines, write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}
