/**
 * What a child of `coffer start` tells the supervisor over the IPC channel
 * (process.send). The core sends the first-run setup link once it has
 * migrated, so the supervisor can print it in its summary without loading
 * the ORM itself.
 */
export interface FirstRunSetupMessage {
  kind: "first-run-setup";
  /** The one-time link while no one can sign in; null once a login exists or when it could not be made. */
  url: string | null;
  /** Why no link could be made, if that is the reason url is null. */
  error?: string;
}

export const isFirstRunSetupMessage = (m: unknown): m is FirstRunSetupMessage =>
  typeof m === "object" && m !== null && (m as { kind?: unknown }).kind === "first-run-setup";

/**
 * Calls `stop` when the supervisor goes away (its IPC channel closes): a
 * child whose `coffer start` was killed outright stops too, instead of
 * running on with nobody to stop it.
 */
export function stopWithSupervisor(stop: () => void) {
  if (process.connected) process.once("disconnect", stop);
}
