import { DEAD_REASONS, JOB_STATES, type DeadReason, type JobState } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { readCounter } from "../counters.ts";

/** Dead-letter and lease figures for operators (SPEC J7). Identifiers only, never payloads. */
export interface JobStats {
  /** Jobs in the `jobs` projection, in every state. */
  readonly total: number;
  /** Jobs per state; every state is present, 0 when none is in it. */
  readonly byState: Readonly<Record<JobState, number>>;
  readonly dead: {
    readonly count: number;
    /** Per reason: how many dead jobs, and their share of all dead jobs (0 when none is dead). */
    readonly byReason: Readonly<Record<DeadReason, { readonly count: number; readonly ratio: number }>>;
    /** The job dead the longest (smallest `deadSince`, then id), or `null` when none is dead. */
    readonly oldest: { readonly id: string; readonly deadSince: number } | null;
  };
  /** The most recent redrive in the audit trail (SPEC J6), or `null` when there was none. */
  readonly lastRedrive: {
    readonly jobId: string;
    readonly at: number;
    readonly note: string;
    readonly previousToken: number;
    /** The redriven job's state now: the result of the redrive so far (`null` if the job row is gone). */
    readonly resultState: JobState | null;
  } | null;
  /**
   * Redrives recorded in the audit trail (SPEC J6), ever: one per accepted redrive, never one
   * for a refused one. Only climbs, so it can be exposed as a counter.
   */
  readonly redrives: number;
  /** Claims that took a job over from a worker whose lease had expired (not handler failures). */
  readonly leaseExpiries: number;
  /** Finishes refused because the token was stale or the job no longer leased. */
  readonly staleFinishesRefused: number;
  /**
   * Per named queue (every queue with jobs or a limit, or only the one asked for): its jobs by
   * state, its leased count (what its limit is judged by) and its limit (`null`: none).
   */
  readonly queues: Readonly<Record<string, QueueStats>>;
}

/** One queue's figures in {@link JobStats}. */
export interface QueueStats {
  readonly byState: Readonly<Record<JobState, number>>;
  readonly leased: number;
  readonly maxLeased: number | null;
}

const STATES: readonly JobState[] = JOB_STATES;
const REASONS: readonly DeadReason[] = DEAD_REASONS;

/** Reads the figures of {@link JobStats} in a few aggregate queries; `queue` keeps `queues` to that one. */
export async function selectJobStats(db: Kysely<VerqDatabase>, queue?: string): Promise<JobStats> {
  const stateRows = await db
    .selectFrom("jobs")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.sum<number>("lease_expiries").as("expiries")])
    .groupBy("state")
    .execute();
  const reasonRows = await db
    .selectFrom("jobs")
    .select(["reason", (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "=", "dead")
    .groupBy("reason")
    .execute();
  const oldest = await db
    .selectFrom("jobs")
    .select(["id", "dead_since"])
    .where("state", "=", "dead")
    .orderBy("dead_since")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  const last = await db
    .selectFrom("redrives")
    .leftJoin("jobs", "jobs.id", "redrives.job_id")
    .select(["redrives.job_id", "redrives.at_ms", "redrives.note", "redrives.previous_token", "jobs.state"])
    .orderBy("redrives.position", "desc")
    .limit(1)
    .executeTakeFirst();

  const redrives = await db
    .selectFrom("redrives")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();

  const queues = await selectQueueStats(db, queue);
  const byState = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<JobState, number>;
  let leaseExpiries = 0;
  for (const row of stateRows) {
    byState[row.state as JobState] = Number(row.n);
    leaseExpiries += Number(row.expiries ?? 0);
  }
  const deadCount = byState.dead;
  const byReason = Object.fromEntries(REASONS.map((r) => [r, { count: 0, ratio: 0 }])) as Record<
    DeadReason,
    { count: number; ratio: number }
  >;
  for (const row of reasonRows) {
    const count = Number(row.n);
    byReason[row.reason as DeadReason] = { count, ratio: deadCount === 0 ? 0 : count / deadCount };
  }
  return {
    total: STATES.reduce((sum, s) => sum + byState[s], 0),
    byState,
    dead: {
      count: deadCount,
      byReason,
      oldest: oldest === undefined ? null : { id: oldest.id, deadSince: Number(oldest.dead_since) },
    },
    lastRedrive:
      last === undefined
        ? null
        : {
            jobId: last.job_id,
            at: Number(last.at_ms),
            note: last.note,
            previousToken: Number(last.previous_token),
            resultState: (last.state ?? null) as JobState | null,
          },
    redrives: Number(redrives.n),
    leaseExpiries,
    staleFinishesRefused: await readCounter(db, "job.staleFinishesRefused"),
    queues,
  };
}

async function selectQueueStats(db: Kysely<VerqDatabase>, only: string | undefined): Promise<Record<string, QueueStats>> {
  let counts = db
    .selectFrom("jobs")
    .select(["queue", "state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(["queue", "state"]);
  let limits = db.selectFrom("queues").select(["name", "max_leased"]);
  if (only !== undefined) {
    counts = counts.where("queue", "=", only);
    limits = limits.where("name", "=", only);
  }
  const entry = () => ({
    byState: Object.fromEntries(STATES.map((s) => [s, 0])) as Record<JobState, number>,
    leased: 0,
    maxLeased: null as number | null,
  });
  const queues = new Map<string, ReturnType<typeof entry>>();
  const of = (name: string) => queues.get(name) ?? queues.set(name, entry()).get(name)!;
  if (only !== undefined) of(only);
  for (const row of await counts.execute()) of(row.queue).byState[row.state as JobState] = Number(row.n);
  for (const row of await limits.execute()) of(row.name).maxLeased = row.max_leased === null ? null : Number(row.max_leased);
  const sorted = [...queues.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(sorted.map(([name, q]) => [name, { ...q, leased: q.byState.leased }]));
}
