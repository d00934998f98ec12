import { MAX_QUEUE_LIMIT, VerqError } from "@verq/core";
import { JobQueue } from "@verq/store";
import { clockFromEnv } from "./clock-from-env.ts";
import { parseWholeNumber, runCommand, withStore } from "./common.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";
import { parseQueueName } from "./queue-options.ts";

/** The options of `verq queues limit`. */
export interface LimitOptions extends DbOptions {
  readonly maxLeased?: string;
  readonly none?: boolean;
}

/**
 * `verq queues limit NAME --max-leased N | --none`: sets (or removes) the queue's global
 * concurrency limit, as one `queue.limitSet` event; the limit it already has changes nothing.
 * Options are checked before the store is opened. Exit codes: 0 done (also when unchanged);
 * 2 a bad name or limit, or neither `--max-leased` nor `--none`.
 */
export const limit = (context: CliContext, name: string, o: LimitOptions): Promise<void> =>
  runCommand(context, o, () => {
    const queue = parseQueueName(name, "the queue name");
    if (o.maxLeased === undefined && o.none !== true) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", "queues limit needs --max-leased N, or --none to remove the limit");
    }
    const maxLeased =
      o.none === true ? null : parseWholeNumber(o.maxLeased ?? "", "--max-leased", { min: 1, max: MAX_QUEUE_LIMIT });
    return withStore(o.db, async (store) => {
      const jobs = new JobQueue(store, { clock: clockFromEnv() });
      const result = await jobs.setQueueLimit(queue, { maxLeased });
      const shown = (n: number | null) => (n === null ? "unlimited" : `at most ${n} leased`);
      emit(
        context.io,
        o.json === true,
        { queue, maxLeased: result.queue.maxLeased, changed: result.changed, version: result.queue.version },
        () => `queue ${queue}: ${shown(result.queue.maxLeased)}${result.changed ? "" : " (unchanged)"}`,
      );
    });
  });
