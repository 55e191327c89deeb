import type { ScheduledQueue } from "../../services/schedule.js";
import { periodicTasksOf, syncRuntimeOf } from "../../services/server.js";
import { waitFor } from "./wait.js";

/**
 * Runs one of a listening core's periodic tasks now and waits for its job to
 * end: the job's final state is the witness that the run happened (and what
 * it returned, its output).
 */
export async function runPeriodicTask(
  coreApp: object,
  queue: ScheduledQueue,
): Promise<{ state: string; output: unknown }> {
  const id = await periodicTasksOf(coreApp).runNow(queue);
  if (!id) throw new Error(`a run of ${queue} was already waiting`);
  const boss = syncRuntimeOf(coreApp).scheduler.jobQueue;
  const job = await waitFor(async () => {
    const j = await boss.getJobById(queue, id, { includeArchive: true });
    return j && (j.state === "completed" || j.state === "failed") ? j : null;
  }, `the ${queue} job`);
  return { state: job.state, output: job.output };
}
