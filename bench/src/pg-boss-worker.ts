/**
 * The pg-boss worker the bench runs, in its own process and in pg-boss's worker processes alike.
 *
 * pg-boss 10 has no teamSize: one `work` loop fetches up to `batchSize` jobs, hands them to the
 * handler together, fires `complete` without waiting for it, and then sleeps for
 * pollingIntervalSeconds (default 2 s) before fetching again. At the defaults that caps a
 * worker at 8 jobs / 2 s = 4 jobs/s whatever the database can do, so the handler calls
 * `boss.notifyWorker` (pg-boss's documented way to skip the wait) after each non-empty batch:
 * the worker fetches again at once while jobs remain and waits the default 2 s only after an
 * empty fetch.
 */
import type PgBoss from "pg-boss";

/** Jobs per fetch and per handler call. */
export const BATCH_SIZE = 8;

/** The bench's jobs: their number in the run. */
export interface JobData {
  readonly i: number;
}

/** The worker in a few words, for the rows' `settings`. */
export const WORKER = `one boss.work loop, batchSize ${BATCH_SIZE} (a handler call gets up to ${BATCH_SIZE} jobs; pg-boss 10 has no teamSize), default pollingIntervalSeconds 2, the handler calling boss.notifyWorker after each non-empty batch so the next fetch is immediate while jobs remain (the 2 s wait only follows an empty fetch; without it a worker takes 8 jobs per 2 s)`;

/**
 * Starts one worker, batchSize 8, that calls `handler` for each job at the start of its batch
 * and asks for the next fetch at once after every non-empty batch.
 */
export async function startWorker(boss: PgBoss, name: string, handler: (data: JobData) => void): Promise<void> {
  const worker: { id?: string } = {};
  worker.id = await boss.work<JobData>(name, { batchSize: BATCH_SIZE }, (jobs) => {
    for (const job of jobs) handler(job.data);
    if (worker.id !== undefined) boss.notifyWorker(worker.id);
    return Promise.resolve();
  });
}
