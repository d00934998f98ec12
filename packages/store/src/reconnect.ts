import { VerqError } from "@verq/core";

/** The first pause after a lost connection, in ms, and how much each further one grows. */
const RECONNECT_STEP_MS = 100;
/** The longest pause between two tries after a lost connection, in ms. */
const RECONNECT_MAX_PAUSE_MS = 1_000;

/** A cut COMMIT whose events are not in the log: its transaction did not land, and runs again. */
export class NotLanded extends Error {
  constructor(cause: unknown) {
    super("the transaction whose COMMIT was cut did not land", { cause });
  }
}

/**
 * Runs `attempt` again while its connection was lost before anything could be committed
 * (`isLost`: the connection broke in the transaction before COMMIT, or none could be had, as
 * during a failover or a restart), and while a cut COMMIT was found not to have landed
 * ({@link NotLanded}); with a growing pause, for at most `reconnectMs`, then
 * `VERQ_STORE_UNREACHABLE` naming `where` (and saying the server stayed read-only when `isReadOnly`
 * says so of the last error), with nothing of it written. Any other error is thrown at once.
 */
export async function afterReconnecting<T>(
  attempt: () => Promise<T>,
  isLost: (error: unknown) => boolean,
  isReadOnly: (error: unknown) => boolean,
  reconnectMs: number,
  where: string,
): Promise<T> {
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof NotLanded) && !isLost(error)) throw error;
      const waited = Date.now() - started;
      const pause = Math.min(RECONNECT_MAX_PAUSE_MS, RECONNECT_STEP_MS * tries);
      if (waited + pause > reconnectMs) {
        const cause = error instanceof NotLanded ? error.cause : error;
        const what = isReadOnly(cause)
          ? `the server at ${where} stayed read-only (a replica, or a primary a failover demoted) for ${waited} ms; writes need the primary`
          : `lost the connection to ${where} and got none back within ${reconnectMs} ms`;
        throw new VerqError(
          "VERQ_STORE_UNREACHABLE",
          `${what} (${tries} ${tries === 1 ? "try" : "tries"}); nothing of this call was written, try again later`,
          { cause },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
