import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import { destination, pino, stdSerializers, type Logger } from "pino";
import { isProbe } from "./probes.js";

/** Where log lines go instead of stdout: stderr for the MCP stdio server, a buffer in tests. */
export interface LogStream {
  write(line: string): void;
}

/** A wall-clock time, HH:MM:SS, the way a person reads a terminal. */
const clock = (at: Date) => at.toTimeString().slice(0, 8);

/** One line for a person: the time, who says it (core, rest, mcp, coffer) and what happened. */
export const prettyLine = (at: Date, who: string, text: string) => `${clock(at)} ${who.padEnd(6)} ${text}`;

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE ", 20: "DEBUG ", 40: "WARN ", 50: "ERROR ", 60: "FATAL " };

interface LogObject {
  time?: number;
  level?: number;
  service?: string;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string };
}

/** A pino line (JSON) as one readable line: a request as `GET /path 200 (3 ms)`, an error with its message. */
export function prettyText(o: LogObject): string {
  const level = LEVEL_NAMES[o.level ?? 30] ?? "";
  const request =
    o.req?.method && o.res?.statusCode !== undefined
      ? `${o.req.method} ${o.req.url} ${o.res.statusCode} (${Math.round(o.responseTime ?? 0)} ms)`
      : "";
  const what = request && o.msg === "request completed" ? request : [o.msg, request].filter(Boolean).join(" ");
  return `${level}${what}${o.err?.message ? `: ${o.err.message}` : ""}`;
}

/** A log stream (for loggerOptions) that writes each pino line as a readable one (COFFER_LOG_FORMAT=pretty). */
export function prettyLogStream(out: LogStream = process.stdout): LogStream {
  return {
    write(line: string) {
      let o: LogObject;
      try {
        o = JSON.parse(line) as LogObject;
      } catch {
        return out.write(line);
      }
      out.write(`${prettyLine(new Date(o.time ?? Date.now()), o.service ?? "", prettyText(o))}\n`);
    },
  };
}

let stdoutDestination: ReturnType<typeof destination> | null = null;

/** Lines are written once this many bytes wait (about 15 request lines)... */
export const LOG_BUFFER_BYTES = 4096;
/** ...or this many milliseconds after they were logged, whichever comes first. */
export const LOG_FLUSH_MS = 100;

/**
 * Standard output for JSON lines, written asynchronously and in batches: a
 * line costs a copy into a buffer, and one write system call carries the
 * lines of LOG_BUFFER_BYTES, or of the last LOG_FLUSH_MS when fewer are
 * logged. A write per line (with a request line per call) was the largest
 * single item of a call's CPU profile, in the core and in the gateways
 * (bench/transactions/README.md). pino flushes what is left synchronously
 * when the process exits. One per process.
 */
function asyncStdout(): LogStream {
  stdoutDestination ??= destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  return stdoutDestination;
}

/**
 * Structured JSON logs (pino) for every process (prettyLogStream as the
 * stream turns them into readable lines). Credentials travel only in
 * headers and bodies, neither of which is logged; the redact list is a second
 * line of defence in case a header ever is.
 */
export function loggerOptions(service: string, level: string, stream?: LogStream): FastifyServerOptions["logger"] {
  return {
    level,
    stream: stream ?? asyncStdout(),
    base: { service },
    serializers: { err: (e: Error) => stdSerializers.err(withoutSqlValues(e) as Error) },
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers["x-coffer-session"]',
        "req.headers.authorization",
        "req.headers.cookie",
        'headers["x-api-key"]',
      ],
      censor: "[redacted]",
    },
  };
}

/** A logger like a server's (loggerOptions), for what a process logs before it has one (waiting for the database). */
export function processLogger(service: string, level: string, stream?: LogStream): Logger {
  const { stream: out, ...options } = loggerOptions(service, level, stream) as { stream: LogStream } & object;
  return pino(options, out);
}

/** A PostgreSQL error (pg's DatabaseError, or MikroORM's exception copied from one): a SQLSTATE and a routine. */
const isDatabaseError = (e: Record<string, unknown>) =>
  typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && ("routine" in e || "severity" in e);

/** What of a PostgreSQL error a log line keeps: nothing that can carry a value (detail, where, the statement). */
const DATABASE_FIELDS = ["code", "severity", "routine", "schema", "table", "column", "constraint"] as const;

/**
 * An error as it may be logged: a PostgreSQL error anywhere in its cause
 * chain keeps its SQLSTATE and PostgreSQL's own message, but loses the
 * statement knex writes in front of that message (with the parameter values
 * inlined) and the fields that quote values (`detail`, `where`). Other
 * errors are returned as they are, or as a copy whose cause is cleaned.
 */
export function withoutSqlValues(e: unknown, depth = 0): unknown {
  if (!(e instanceof Error) || depth > 8) return e;
  const cause = e.cause === undefined ? undefined : withoutSqlValues(e.cause, depth + 1);
  const fields = e as unknown as Record<string, unknown>;
  if (isDatabaseError(fields)) {
    // knex reports "<statement> - <PostgreSQL's message>"; the statement ends at the last " - ".
    const at = e.message.lastIndexOf(" - ");
    const message = at >= 0 ? e.message.slice(at + 3) : e.message;
    const clean = new Error(message, cause === undefined ? undefined : { cause });
    clean.name = e.name;
    for (const k of DATABASE_FIELDS) if (fields[k] !== undefined) Object.assign(clean, { [k]: fields[k] });
    const frames = (e.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
    clean.stack = [`${e.constructor.name}: ${message}`, ...frames].join("\n");
    return clean;
  }
  if (cause === e.cause) return e;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as Error, e);
  Object.defineProperties(copy, {
    message: { value: e.message, enumerable: false },
    stack: { value: e.stack, enumerable: false },
    cause: { value: cause, enumerable: false },
  });
  return copy;
}
/** A one-time setup link's token travels in the URL (`/setup?token=…`): the logged URL leaves it out. */
export const loggedUrl = (url: string) => url.replace(/([?&]token=)[^&#]*/gi, "$1[redacted]");

/**
 * One log line per request, when it completes (method, URL, status, time and
 * the request id), instead of fastify's two ("incoming request" and
 * "request completed"): half the log volume, and a synchronous write less on
 * every call (about a quarter of a millisecond of CPU on the core here).
 * Health probes are logged at debug, not info (see probes.ts).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = {
      req: { method: request.method, url: loggedUrl(request.url) },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else if (isProbe(request.url)) reply.log.debug(line, "request completed");
    else reply.log.info(line, "request completed");
  }
}

export const requestLogController = () => new OneLinePerRequest();
