import {
  DEAD_REASONS,
  DEFAULT_QUEUE,
  FINISH_OUTCOMES,
  JOB_STATES,
  MAX_ATTEMPTS_LIMIT,
  VerqError,
  checkIdentifier,
  checkKindName,
  checkToken,
  isValidRedriveNote,
  unknownJobError,
  type DeadReason,
  type FinishOutcome,
  type JobState,
} from "@verq/core";
import { JobQueue, MAX_PRUNE_BATCH, type JobStats, type VerqStore } from "@verq/store";
import { clockFromEnv } from "./clock-from-env.ts";
import {
  iso,
  parseChoice,
  parseDuration,
  parsePayloadOption,
  parseWholeNumber,
  READ_ONLY,
  runCommand,
  withStore,
  type StoreUse,
} from "./common.ts";
import { describeJob, jobRow, kindAndFailure, kindText, showText } from "./job-text.ts";
import { parseKindFilter } from "./kind-filter.ts";
import { parsePriority, parseQueueName } from "./queue-options.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The actions of `verq jobs …` but `work` (./jobs-work.ts), loaded by ./jobs-commands.ts when
 * one runs: the store and the core, no HTTP client.
 */

/** Opens the store and a queue on it (with the clock of `VERQ_NOW_MS`), runs `work`, closes the store. */
const withQueue = <T>(db: string, work: (queue: JobQueue, store: VerqStore) => Promise<T>, use: StoreUse = {}): Promise<T> =>
  withStore(db, (store) => work(new JobQueue(store, { clock: clockFromEnv() }), store), use);

/** `--note` of redrive and cancel: a ticket id, checked before the store is opened (the queue checks it again). */
function checkNote(note: string): void {
  if (!isValidRedriveNote(note)) {
    throw new VerqError(
      "VERQ_INVALID_NOTE",
      "--note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit",
    );
  }
}

/** The options of `verq jobs enqueue`. */
export interface EnqueueOptions extends DbOptions {
  readonly id: string;
  readonly payload: string;
  readonly maxAttempts: string;
  readonly deadline: string;
  readonly orderingKey?: string;
  readonly queue?: string;
  readonly priority?: string;
  readonly kind?: string;
}

/** `verq jobs enqueue`: add a job; the same id with the same payload again is a no-op. */
export const enqueue = (context: CliContext, o: EnqueueOptions): Promise<void> =>
  runCommand(context, o, () => {
    const input = {
      id: checkIdentifier(o.id, "--id"),
      payload: parsePayloadOption(o.payload, '{"quantity": 7}'),
      maxAttempts: parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1, max: MAX_ATTEMPTS_LIMIT }),
      deadline: clockFromEnv().now() + parseDuration(o.deadline, "--deadline", { min: 1 }),
      ...(o.orderingKey === undefined
        ? {}
        : { orderingKey: checkIdentifier(o.orderingKey, "--ordering-key", "VERQ_INVALID_ARGUMENT") }),
      ...(o.queue === undefined ? {} : { queue: parseQueueName(o.queue, "--queue") }),
      ...(o.priority === undefined ? {} : { priority: parsePriority(o.priority, "--priority") }),
      // By name only: a kind's schema lives in the code of its handler, which the CLI does not have.
      ...(o.kind === undefined ? {} : { kind: checkKindName(o.kind) }),
    };
    return withQueue(o.db, async (queue) => {
      const result = await queue.enqueue(input);
      emit(
        context.io,
        o.json === true,
        result,
        () => `${result.created ? "enqueued" : "already enqueued (same payload, no-op)"} ${describeJob(result.job)}`,
      );
    });
  });

/** The options of `verq jobs finish`. */
export interface FinishOptions extends DbOptions {
  readonly token: string;
  readonly outcome: string;
}

/** `verq jobs finish`: record an attempt's outcome; exit 3 when the token is not the current one. */
export const finish = (context: CliContext, id: string, o: FinishOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkIdentifier(id, "the job id");
    const token = checkToken(parseWholeNumber(o.token, "--token", { min: 1 }));
    const outcome = parseChoice<FinishOutcome>(o.outcome, "--outcome", FINISH_OUTCOMES);
    return withQueue(o.db, async (queue) => {
      const accepted = await queue.finish(id, token, outcome);
      emit(context.io, o.json === true, { id, token, outcome, accepted }, () =>
        accepted ? `accepted: ${id} token=${token} ${outcome}` : `refused: ${id} token=${token} is not the current lease`,
      );
      return accepted ? EXIT.ok : EXIT.refused;
    });
  });

/** The options of `verq jobs stats`. */
export interface StatsOptions extends DbOptions {
  readonly queue?: string;
  readonly kind?: string;
}

/** `by class: A=1 B=2`, or nothing when no dead job is counted. */
const classCounts = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .map(([name, n]) => `${name}=${n}`)
    .join(" ") || "none";

/** The human text of `verq jobs stats`. */
const statsText = (s: JobStats): string =>
  [
    `pending=${s.byState.pending} leased=${s.byState.leased} done=${s.byState.done} dead=${s.byState.dead}`,
    `dead by reason: ${Object.entries(s.dead.byReason)
      .map(([r, v]) => `${r}=${v.count} (${(v.ratio * 100).toFixed(1)}%)`)
      .join(" ")}`,
    `dead by last failure class: ${classCounts(s.dead.byFailureClass)}`,
    `oldest dead: ${s.dead.oldest === null ? "none" : `${s.dead.oldest.id} since ${iso(s.dead.oldest.deadSince)}`}`,
    `last redrive: ${s.lastRedrive === null ? "none" : `${s.lastRedrive.jobId} ${s.lastRedrive.note} at ${iso(s.lastRedrive.at)} -> ${s.lastRedrive.resultState ?? "?"}`}`,
    `lease expiries: ${s.leaseExpiries}; stale finishes refused: ${s.staleFinishesRefused}`,
    ...Object.entries(s.queues).map(
      ([name, q]) =>
        `queue ${name}: pending=${q.byState.pending} leased=${q.leased}/${q.maxLeased ?? "unlimited"} done=${q.byState.done} dead=${q.byState.dead}`,
    ),
    ...Object.entries(s.kinds).map(
      ([name, k]) =>
        `kind ${name}: pending=${k.byState.pending} leased=${k.byState.leased} done=${k.byState.done} dead=${k.byState.dead} (dead by class: ${classCounts(k.deadByFailureClass)})`,
    ),
  ].join("\n");

/**
 * `verq jobs stats`: counts by state, dead letters by reason and last failure class, the oldest
 * dead job, the last redrive, lease expiries, per queue and per kind. `--queue` names a queue of
 * the store (one with a job or a limit, or `default`): another is `VERQ_UNKNOWN_QUEUE` (exit 4),
 * naming the queues there are.
 */
export const stats = (context: CliContext, o: StatsOptions): Promise<void> =>
  runCommand(context, o, () => {
    const only = o.queue === undefined ? undefined : parseQueueName(o.queue, "--queue");
    const kind = o.kind === undefined ? undefined : parseKindFilter(o.kind);
    return withQueue(
      o.db,
      async (queue) => {
        if (only !== undefined && only !== DEFAULT_QUEUE) {
          const known = Object.keys((await queue.stats()).queues);
          if (!known.includes(only)) throw unknownQueue(only, known);
        }
        const s = await queue.stats({ ...(only === undefined ? {} : { queue: only }), ...(kind === undefined ? {} : { kind }) });
        emit(context.io, o.json === true, s, () => statsText(s));
      },
      READ_ONLY,
    );
  });

/** `VERQ_UNKNOWN_QUEUE`: `--queue` names a queue the store has never had: no job in it and no limit. */
function unknownQueue(name: string, known: readonly string[]): VerqError {
  const shown = known.slice(0, 20).map((q) => JSON.stringify(q));
  const list = known.length === 0 ? "it has none yet" : `its queues are ${shown.join(", ")}${known.length > 20 ? ", …" : ""}`;
  return new VerqError(
    "VERQ_UNKNOWN_QUEUE",
    `no queue ${JSON.stringify(name.slice(0, 80))} in this store (no job in it, no limit set); ${list}. Check --queue.`,
  );
}

/** The options of `verq jobs dead`. */
export interface DeadOptions extends DbOptions {
  readonly reason?: string;
  readonly kind?: string;
  readonly limit: string;
}

/** `verq jobs dead`: dead jobs, oldest first, with their kind and last failure; identifiers only. */
export const dead = (context: CliContext, o: DeadOptions): Promise<void> =>
  runCommand(context, o, () => {
    const reason = o.reason === undefined ? undefined : parseChoice<DeadReason>(o.reason, "--reason", DEAD_REASONS);
    const kind = o.kind === undefined ? undefined : parseKindFilter(o.kind);
    const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
    return withQueue(
      o.db,
      async (queue) => {
        const jobs = await queue.list("dead", {
          limit,
          ...(reason === undefined ? {} : { reason }),
          ...(kind === undefined ? {} : { kind }),
        });
        emit(context.io, o.json === true, jobs.map(jobRow), () =>
          jobs.length === 0
            ? "no dead jobs"
            : jobs
                .map(
                  (j) =>
                    `${j.id} ${j.reason} since ${iso(j.deadSince ?? 0)} attempts=${j.attempts} token=${j.token} ${kindAndFailure(j)}`,
                )
                .join("\n"),
        );
      },
      READ_ONLY,
    );
  });

/** The options of `verq jobs list`. */
export interface ListOptions extends DbOptions {
  readonly state: string;
  readonly kind?: string;
  readonly limit: string;
}

/** `verq jobs list`: jobs in one state, oldest first, with their queue, kind and last failure; identifiers only. */
export const list = (context: CliContext, o: ListOptions): Promise<void> =>
  runCommand(context, o, () => {
    const state = parseChoice<JobState>(o.state, "--state", JOB_STATES);
    const kind = o.kind === undefined ? undefined : parseKindFilter(o.kind);
    const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
    return withQueue(
      o.db,
      async (queue) => {
        const jobs = await queue.list(state, { limit, ...(kind === undefined ? {} : { kind }) });
        emit(context.io, o.json === true, jobs.map(jobRow), () =>
          jobs.length === 0
            ? `no ${state} jobs${kind === undefined ? "" : ` of kind ${kindText(kind)}`}`
            : jobs.map((j) => `${describeJob(j)} queue=${j.queue} ${kindAndFailure(j)}`).join("\n"),
        );
      },
      READ_ONLY,
    );
  });

/** The options of `verq jobs redrive`. */
export interface RedriveOptions extends DbOptions {
  readonly note: string;
  readonly deadline?: string;
}

/** `verq jobs redrive`: a dead job back to pending with a fresh budget, with a ticket id as the note. */
export const redrive = (context: CliContext, id: string, o: RedriveOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkIdentifier(id, "the job id");
    checkNote(o.note);
    const deadline =
      o.deadline === undefined ? undefined : clockFromEnv().now() + parseDuration(o.deadline, "--deadline", { min: 1 });
    return withQueue(o.db, async (queue) => {
      const record = await queue.redrive(id, deadline === undefined ? { note: o.note } : { note: o.note, deadline });
      emit(
        context.io,
        o.json === true,
        record,
        () => `redriven ${record.jobId} note=${record.note} previous token=${record.previousToken}`,
      );
    });
  });

/** The options of `verq jobs prune`. */
export interface PruneOptions extends DbOptions {
  readonly doneOlderThan: string;
  readonly deadOlderThan?: string;
  readonly batch: string;
  readonly dryRun?: boolean;
}

/** `verq jobs prune`: retention of finished jobs, in batches, each pruned job kept in the archive. */
export const prune = (context: CliContext, o: PruneOptions): Promise<void> =>
  runCommand(context, o, () => {
    const options = {
      doneOlderThan: parseDuration(o.doneOlderThan, "--done-older-than"),
      ...(o.deadOlderThan === undefined ? {} : { deadOlderThan: parseDuration(o.deadOlderThan, "--dead-older-than") }),
      batchSize: parseWholeNumber(o.batch, "--batch", { min: 1, max: MAX_PRUNE_BATCH }),
      dryRun: o.dryRun === true,
    };
    return withQueue(
      o.db,
      async (queue) => {
        const r = await queue.prune(options);
        emit(context.io, o.json === true, r, () =>
          [
            `${r.dryRun ? "would prune" : "pruned"} done=${r.pruned.done} dead=${r.pruned.dead} events=${r.events}${r.dryRun ? " (dry run: nothing changed)" : ` in ${r.batches} batch(es)`}`,
            `cutoffs: done at or before ${iso(r.doneCutoff)}, dead ${r.deadCutoff === null ? "kept" : `at or before ${iso(r.deadCutoff)}`}`,
            `kept (old enough but not prunable): pending=${r.kept.pending} leased=${r.kept.leased} done=${r.kept.done} dead=${r.kept.dead}`,
          ].join("\n"),
        );
      },
      { mustExist: options.dryRun },
    );
  });

/** The options of `verq jobs cancel`. */
export interface CancelOptions extends DbOptions {
  readonly note: string;
}

/**
 * `verq jobs cancel`: a pending or leased job dead with reason `cancelled`, with a ticket id as
 * the note. Exit 0 cancelled, 3 refused by the machine (the job already ended: done or dead),
 * 4 unknown id, 2 a bad id or note (checked before the database is opened).
 */
export const cancel = (context: CliContext, id: string, o: CancelOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkIdentifier(id, "the job id");
    checkNote(o.note);
    return withQueue(o.db, async (queue) => {
      const result = await queue.cancel(id, { note: o.note });
      emit(context.io, o.json === true, result, () =>
        result.cancelled
          ? `cancelled ${result.jobId} (was ${result.state}) note=${result.note} token=${result.previousToken}`
          : `refused: ${result.jobId} is ${result.state} (${result.refusal}); only a pending or leased job can be cancelled`,
      );
      return result.cancelled ? EXIT.ok : EXIT.refused;
    });
  });

/** `verq jobs show`: a job with its kind and last failure, and its timeline with each event's failure; without payloads. */
export const show = (context: CliContext, id: string, o: DbOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkIdentifier(id, "the job id");
    return withQueue(
      o.db,
      async (queue) => {
        const events = await queue.history(id);
        const job = await queue.get(id);
        if (job === null) throw unknownJobError(id);
        emit(context.io, o.json === true, { ...job, events }, () => showText(job, events));
      },
      READ_ONLY,
    );
  });
