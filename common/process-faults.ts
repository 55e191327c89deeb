/** What process-faults logs to (a pino logger). */
export interface FaultLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * A process's last line of defence against a failure nobody awaited (an
 * unhandled rejection) or caught (an uncaught exception). A failure
 * `passes(e)` says will pass by itself (the core: the database is away; its
 * callers wait for it) is logged and the process goes on. Anything else is a
 * bug: it is logged, and the process stops the clean way (`stop`: in-flight
 * calls finish) with exit code 1, so a supervisor restarts it. Never a silent
 * crash, and never a crash for a database outage.
 */
export function handleProcessFaults(opts: {
  log: () => FaultLogger;
  passes?: (e: unknown) => boolean;
  stop: (exitCode: number) => void;
}): void {
  const fault = (kind: string) => (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    if (opts.passes?.(e)) {
      opts.log().warn({ err }, `${kind} while the database was away (it goes on)`);
      return;
    }
    opts.log().error({ err }, `${kind}: stopping after the calls in flight`);
    opts.stop(1);
  };
  process.on("unhandledRejection", fault("unhandled rejection"));
  process.on("uncaughtException", fault("uncaught exception"));
}
