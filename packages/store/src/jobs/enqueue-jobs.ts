import {
  DEFAULT_QUEUE,
  JOB_STREAM,
  VerqError,
  isVerqError,
  alreadyEnqueuedJob,
  canonicalJson,
  checkFutureTime,
  checkIdentifier,
  checkKindName,
  checkMaxAttempts,
  checkPriority,
  checkQueueName,
  checkTime,
  jobCommands,
  newJob,
  type Job,
  type JobCommand,
} from "@verq/core";
import type { Kysely } from "kysely";
import { commitChanges, decideMany, WITNESSED } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import { insertJobAlone } from "../sql/jobs/insertJobAlone.ts";
import { selectArchivedJobs } from "../sql/jobs/selectArchivedJobs.ts";
import { checkOuterTransaction } from "../outer-transaction.ts";
import { verqTracing, type VerqSpan, type VerqTracing } from "../verq-tracing.ts";
import { answer, handleJobs, isArray, type DecidedJob, type JobContext } from "./job-context.ts";

/** What to enqueue. `deadline` is absolute (ms since the epoch). */
export interface EnqueueInput {
  readonly id: string;
  readonly payload: unknown;
  readonly maxAttempts?: number;
  readonly deadline?: number;
  /** Earliest time the job may be claimed; now by default. */
  readonly availableAt?: number;
  /** Jobs with one key run one at a time in enqueue order (SPEC J10). */
  readonly orderingKey?: string;
  /** The named queue: `default` unless told. An identifier, as job ids are. */
  readonly queue?: string;
  /**
   * A whole number from -1000 to 1000, 0 unless told: among the due jobs of the queues a claim
   * asks for, higher priority is claimed first, then enqueue order. Strict: a steady stream of
   * higher-priority work delays lower-priority work without bound (no aging).
   */
  readonly priority?: number;
  /**
   * The job's kind, which routes it to its handler (see `defineJobKind`): a letter, then up to 63
   * letters, digits or `_ . : -`. None unless told. A worker that has no handler for it never
   * claims the job: it stays pending for one that has.
   */
  readonly kind?: string;
}

/**
 * Where an enqueue is written. By default each `enqueue`/`enqueueMany` is its own transaction.
 * With `trx`, a transaction the service opened on this store's database (from
 * `VerqStore.transaction` or `store.db.transaction()`), the job's event and row are written
 * in it, beside the service's own rows: both commit or neither does (the transactional outbox,
 * SPEC P2). Enqueue errors are thrown inside that transaction, so the service's rows roll back
 * with them unless it catches the error. Calling `enqueue` without `trx` inside a transaction of
 * the same store would wait for that transaction for ever: pass it.
 *
 * @example
 * await store.transaction(async (trx) => {
 *   await trx.withTables<{ orders: OrderRow }>().insertInto("orders").values(order).execute();
 *   await queue.enqueue({ id: `charge-${order.id}`, payload: { orderId: order.id } }, { trx });
 * });
 */
export interface EnqueueOptions {
  // Any table types: the service's transaction also sees its own tables.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly trx?: Kysely<any>;
}

/** `created: false` means the same id with the same payload was already there: a no-op. */
export interface EnqueueResult {
  readonly created: boolean;
  readonly job: Job;
}

/** An enqueue input checked and turned into its command, before anything is written. */
interface EnqueueItem {
  readonly id: string;
  readonly commands: readonly [JobCommand];
}

/**
 * Adds jobs in one transaction (`options.trx`, or one of their own): one commit, and one
 * statement per table, however many jobs; results in input order. Enqueueing an existing id with
 * the same payload is a no-op (`created: false`); with a different payload it throws
 * `VERQ_ENQUEUE_CONFLICT`. All or nothing: one invalid input or one conflict throws and
 * enqueues none of them.
 */
export async function enqueueJobs(
  context: JobContext,
  inputs: readonly EnqueueInput[],
  options: EnqueueOptions | undefined,
): Promise<EnqueueResult[]> {
  if (!isArray(inputs)) throw new VerqError("VERQ_INVALID_ARGUMENT", "enqueueMany takes an array of jobs");
  const outer = checkOuterTransaction(options?.trx);
  if (inputs.length === 0) return [];
  const now = context.clock.now();
  const tracing = verqTracing();
  const spans: VerqSpan[] = [];
  try {
    const items = inputs.map((input) => enqueueCommand(context, input, now, tracing, spans));
    const results = await enqueueItems(context, outer, items);
    results.forEach((result, i) => spans[i]?.set({ "verq.job.created": result.created }));
    return results;
  } catch (error) {
    const code = isVerqError(error) ? error.code : "VERQ_UNEXPECTED";
    for (const span of spans) span.fail(code, { "verq.error.code": code });
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}

/** Writes checked enqueues: alone in one statement where that may be, else in a transaction. */
async function enqueueItems(
  context: JobContext,
  outer: Kysely<VerqDatabase> | undefined,
  items: readonly EnqueueItem[],
): Promise<EnqueueResult[]> {
  const [item] = items;
  if (outer === undefined && items.length === 1 && item !== undefined && context.store.dialect.statements.standaloneWrites) {
    const alone = await enqueueAlone(context, item);
    if (alone !== undefined) return [alone];
  }
  return outer === undefined
    ? await context.store.transaction((trx) => enqueueIn(context, trx, items), undefined, WITNESSED)
    : await enqueueIn(context, outer, items);
}

/**
 * Every enqueue is first decided as the creation of its job, from the blank job at version 0,
 * and its first event written insert-or-nothing: the UNIQUE constraint, not a lookup, tells
 * whether the job is new (one statement per table for the batch). The losers, whose job
 * already existed or was created meanwhile by another writer, are decided again against that
 * job: the machine refuses them as `already-enqueued` (`created: false`) or `payload-conflict`.
 *
 * This is the command path's one insert-or-nothing shape, and why it is not `handleJobs`: a
 * creation is decided with no load at all (`decideMany` from the blank jobs), committed with
 * `creations: "skip"`, and only the losers go through the ordinary path (`handleJobs`, which
 * loads the winner's job). Loading first would cost a read per batch on the hot path and still
 * race a concurrent enqueue of the same id.
 */
async function enqueueIn(
  context: JobContext,
  trx: Kysely<VerqDatabase>,
  items: readonly EnqueueItem[],
): Promise<EnqueueResult[]> {
  const { store } = context;
  // One query for the batch: an id once pruned is decided from its archive row (refused).
  const archived = await selectArchivedJobs(trx, store.dialect, [...new Set(items.map((item) => item.id))]);
  const initial = (id: string) => newJob(id, archived.get(id) ?? null);
  const first = decideMany(new Map(), context.decide, items, initial);
  const written = await commitChanges(trx, store.dialect, context.jobs, first.changes, { creations: "skip" });
  if (written.length > 0) await store.announce(trx, "jobs");
  const created = new Set(written.map((change) => change.after.id));
  const lost = items.filter((item) => !created.has(item.id));
  const again = lost.length === 0 ? [] : await handleJobs(context, trx, lost, initial);
  return items.map((item, i) => {
    const decided = created.has(item.id) ? first.decided[i] : again.shift();
    if (decided === undefined) throw new Error(`no decision for the enqueue of ${item.id}`);
    return enqueueResult(decided, item.commands[0]);
  });
}

/**
 * A lone enqueue of a new job where one statement may be a transaction by itself
 * (`standaloneWrites`, PostgreSQL): decided as the creation of its job from the blank job, as
 * {@link enqueueIn} decides it, and written by one statement in one round trip (its event
 * insert-or-nothing, its row, the wake-up). Undefined when that statement wrote nothing (the id
 * was taken, or is in the archive) or the machine did not create the job from the blank one:
 * the ordinary path then decides it, from what is there.
 */
async function enqueueAlone(context: JobContext, item: EnqueueItem): Promise<EnqueueResult | undefined> {
  const { store } = context;
  const wake = store.dialect.wakeups.notification("jobs", true);
  const { decided, changes } = decideMany(new Map(), context.decide, [item], (id) => newJob(id, null));
  const [change] = changes;
  const [event] = change?.events ?? [];
  if (wake === null || decided[0] === undefined || change === undefined || change.events.length !== 1 || event === undefined)
    return undefined;
  const job = change.after;
  if (job.state === "new") return undefined;
  const payloadJson = context.payloadText(job.payload);
  const row = { type: event.type, data: JSON.stringify(event.data), at: event.data.at };
  let written: boolean;
  try {
    written = (await store.standalone((db) => insertJobAlone(db, store.dialect, { job, payloadJson }, row, wake))) !== null;
  } catch (error) {
    // Nothing was sent, or the statement was cut before it could commit: the ordinary path runs it again.
    if (store.dialect.errors.isConnectionLost(error)) return undefined;
    if (!isVerqError(error, "VERQ_STORE_CONNECTION_LOST")) throw error;
    // The statement was cut while it committed: its event, read back, tells whether it did.
    written = await store.landed([{ streamType: JOB_STREAM, streamId: job.id, version: 1, ...row }]);
  }
  if (!written) return undefined;
  // Committed: this store's idle workers are woken now, the others by the statement's NOTIFY.
  store.dialect.wakeups.wakeHere("jobs");
  return enqueueResult(decided[0], item.commands[0]);
}

/**
 * Checks one enqueue input and builds its command; throws before anything is written. A checked
 * input starts its `verq.job.enqueue` span (added to `spans`), and the command carries the trace
 * context of that span, stored with the job: its handling continues the trace.
 */
function enqueueCommand(
  context: JobContext,
  input: EnqueueInput,
  now: number,
  tracing: VerqTracing,
  spans: VerqSpan[],
): EnqueueItem {
  const id = checkIdentifier(input?.id, "a job id");
  const payloadJson = canonicalJson(input.payload);
  const maxAttempts = checkMaxAttempts(input.maxAttempts ?? context.defaultMaxAttempts);
  const deadline = checkFutureTime(input.deadline ?? now + context.defaultDeadlineMs, now, "the deadline");
  const availableAt = checkTime(input.availableAt ?? now, "availableAt");
  const orderingKey =
    input.orderingKey === undefined ? null : checkIdentifier(input.orderingKey, "an ordering key", "VERQ_INVALID_ARGUMENT");
  const queue = checkQueueName(input.queue ?? DEFAULT_QUEUE);
  const priority = checkPriority(input.priority ?? 0);
  const kind = input.kind === undefined ? {} : { kind: checkKindName(input.kind) };
  // A copy of its own, in canonical key order: nothing the caller does to its object later reaches it.
  const payload = JSON.parse(payloadJson) as Job["payload"];
  if (typeof payload === "object" && payload !== null) context.payloadTexts.set(payload, payloadJson);
  const span = tracing.start(
    "verq.job.enqueue",
    { "verq.job.id": id, "verq.job.queue": queue, "verq.job.kind": input.kind },
    { kind: "producer" },
  );
  spans.push(span);
  const traceContext = span.run(() => tracing.inject());
  const trace = traceContext === undefined ? {} : { traceContext };
  return {
    id,
    commands: [
      jobCommands.enqueue({ payload, maxAttempts, deadline, availableAt, orderingKey, queue, priority, ...kind, ...trace, now }),
    ],
  };
}

/** An enqueue's answer: the job created, the existing one for the same payload (a no-op), or the refusal's error. */
function enqueueResult(decided: DecidedJob, command: JobCommand): EnqueueResult {
  const { before, decision } = decided;
  if (decision.accepted) return { created: true, job: decision.after };
  const existing = alreadyEnqueuedJob(decision.refusal, before);
  if (existing !== undefined) return { created: false, job: existing };
  answer(decided, command);
  throw new VerqError("VERQ_UNEXPECTED", `enqueue of ${before.id} refused: ${decision.refusal}`);
}
