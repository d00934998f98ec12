import { foldJob, type JobEvent, type JobState } from "@verq/core";
import type { StoredEvent } from "@verq/store";
import { JOB_IDS, JOB_QUEUES, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { archivedIds, highestPosition, jobEventCounts } from "./event-log.ts";
import { modelEqual, modelFail } from "./model-assert.ts";

const STATES: readonly JobState[] = ["pending", "leased", "done", "dead"];

/** A stored event as the domain's `JobEvent` (the log keeps `{ type, data }` verbatim). */
export function toJobEvent(stored: StoredEvent): JobEvent {
  return { type: stored.type, data: stored.data } as JobEvent;
}

/**
 * The properties that hold after every command, checked in this order:
 *
 * - (a) J3/J6: the tokens in a job's `job.claimed` events are 1, 2, 3, … (each the previous
 *   maximum + 1, none twice, none reset by a redrive), they are the tokens the claims returned,
 *   and the job's token is the last of them;
 * - (d) J1: every enqueued job is in exactly one state list; dead ⇔ a reason; `stats().byState`
 *   counts every enqueued job once;
 * - (e) the live projection of every job equals the fold of its events;
 * - model: every job's projection is exactly what the reference model expects;
 * - cancel: a cancelled job is never finished `ok`: no `job.completed` follows a `job.cancelled`
 *   in its stream unless a `job.redriven` came between;
 * - J6/J7: `stats().lastRedrive` is the last accepted redrive;
 * - queues: `stats().queues` has each queue's leased count and limit as the model has them;
 * - retention: no pending or leased job is ever removed; the archive holds exactly the pruned
 *   ids, each as the model archived it, with no events and no `jobs` row left; the highest
 *   global event position never goes backwards (a prune deletes events, never the newest).
 */
export async function checkInvariants(m: JobsModel, r: JobsReal): Promise<void> {
  modelEqual("clock", "the manual clock", r.clock.now(), m.now);
  for (const id of JOB_IDS) {
    const actual = await r.queue.get(id);
    if (actual === null) {
      const expected = m.jobs.get(id);
      if (expected?.state === "pending" || expected?.state === "leased")
        modelFail("prune unfinished", `job ${id} is gone; it was ${expected.state} (token ${expected.token})`);
      modelEqual("model", `job ${id}`, actual, m.jobs.get(id) ?? null);
      continue;
    }
    const history = await r.queue.history(id);
    const tokens = history.flatMap((e) => (e.type === "job.claimed" ? [(e.data as { token: number }).token] : []));
    tokens.forEach((token, i) => {
      if (token !== i + 1)
        modelFail("a tokens", `job ${id}: claim #${i + 1} carries token ${token} (tokens ${tokens.join(",")})`);
    });
    modelEqual("a tokens", `job ${id}: tokens handed out by claims`, tokens, m.tokensIssued.get(id) ?? []);
    modelEqual("a tokens", `job ${id}: current token is the last one handed out`, actual.token, tokens.at(-1) ?? 0);
    if ((actual.state === "dead") !== (actual.reason !== null)) {
      modelFail("d J1", `job ${id}: state ${actual.state} with reason ${actual.reason}`);
    }
    modelEqual("e fold", `job ${id}: projection vs fold of its events`, actual, foldJob(history.map(toJobEvent)));
    let cancelledAt: number | null = null;
    for (const event of history) {
      if (event.type === "job.cancelled") cancelledAt = event.version;
      else if (event.type === "job.redriven") cancelledAt = null;
      else if (event.type === "job.completed" && cancelledAt !== null) {
        modelFail("cancel never ok", `job ${id}: v${event.version} job.completed after the job.cancelled at v${cancelledAt}`);
      }
    }
    modelEqual("model", `job ${id}`, actual, m.jobs.get(id) ?? null);
  }
  const seen = new Map<string, JobState[]>();
  for (const state of STATES) {
    for (const job of await r.queue.list(state, { limit: 1_000 })) {
      if (job.state !== state) modelFail("d J1", `list(${state}) returned ${job.id} in ${job.state}`);
      seen.set(job.id, [...(seen.get(job.id) ?? []), state]);
    }
  }
  for (const id of m.jobs.keys()) {
    if (seen.get(id)?.length !== 1) modelFail("d J1", `job ${id} is in ${JSON.stringify(seen.get(id) ?? [])}`);
  }
  if (seen.size !== m.jobs.size) modelFail("d J1", `state lists hold ${seen.size} jobs, ${m.jobs.size} were enqueued`);
  const stats = await r.queue.stats();
  const sum = STATES.reduce((n, s) => n + stats.byState[s], 0);
  if (sum !== m.jobs.size || stats.total !== m.jobs.size) {
    modelFail("d stats", `byState sums to ${sum} (total ${stats.total}), ${m.jobs.size} jobs were enqueued`);
  }
  for (const queue of JOB_QUEUES) {
    const figures = stats.queues[queue];
    const want = { leased: m.leasedIn(queue), maxLeased: m.limits.get(queue) ?? null };
    const got = figures === undefined ? { leased: 0, maxLeased: null } : { leased: figures.leased, maxLeased: figures.maxLeased };
    modelEqual("queue stats", `stats().queues.${queue}`, got, want);
  }
  const last = stats.lastRedrive;
  modelEqual(
    "J6 audit",
    "stats().lastRedrive",
    last === null ? null : { jobId: last.jobId, at: last.at, note: last.note, previousToken: last.previousToken },
    m.lastRedrive,
  );
  await checkRetention(m, r);
}

async function checkRetention(m: JobsModel, r: JobsReal): Promise<void> {
  const position = await highestPosition(r);
  if (position < m.highestPosition)
    modelFail("positions", `the highest event position went back from ${m.highestPosition} to ${position}`);
  m.highestPosition = position;
  const archived = [...m.archive.keys()].sort();
  modelEqual("prune archive", "ids in job_archive", await archivedIds(r), archived);
  if (archived.length === 0) return;
  const counts = await jobEventCounts(r, archived);
  for (const id of archived) {
    if (counts.get(id) !== 0) modelFail("prune archive", `archived ${id} has ${counts.get(id)} events`);
    if ((await r.queue.get(id)) !== null) modelFail("prune archive", `archived ${id} has a jobs row`);
    modelEqual("prune archive", `archive row of ${id}`, await r.queue.archived(id), m.archive.get(id) ?? null);
  }
}
