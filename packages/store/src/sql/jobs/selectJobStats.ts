import { DEAD_REASONS, JOB_STATES, type DeadReason, type JobState } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readCounter } from "../counters.ts";
import { selectJobGroups, type DeadFailureRow, type JobGroupRow } from "./selectJobGroups.ts";

/**
 * The key of jobs without a kind in {@link JobStats.kinds}, and of dead jobs with no recorded
 * failure in `byFailureClass`: never a kind's name (those start with a letter) nor a failure's
 * class (an identifier, or a `typeof`).
 */
export const JOB_STATS_NONE = "(none)";

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
    /**
     * Dead jobs by the class of their last recorded failure (its `errorClass`: `TypeError`,
     * `HttpError`), those with none recorded (a deadline, a cancel, a lease that ran out, or
     * written before failures were recorded) under {@link JOB_STATS_NONE}; only classes with dead
     * jobs, by name. A redriven job keeps its last failure, but counts here only while dead.
     */
    readonly byFailureClass: Readonly<Record<string, number>>;
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
  /**
   * Per kind (every kind with jobs, by name, jobs without one under {@link JOB_STATS_NONE}; with
   * `kind`, that one only, zeros if it has no job): its jobs by state and its dead ones by the
   * class of their last failure.
   */
  readonly kinds: Readonly<Record<string, KindStats>>;
  /**
   * Per queue and kind with jobs (within `queue` and `kind` when asked), by queue then kind: the
   * figures a metric labels with both.
   */
  readonly groups: readonly JobGroupStats[];
}

/** One kind's figures in {@link JobStats}. */
export interface KindStats {
  readonly byState: Readonly<Record<JobState, number>>;
  /** Its dead jobs by the class of their last failure, as `JobStats.dead.byFailureClass`. */
  readonly deadByFailureClass: Readonly<Record<string, number>>;
}

/** The figures of one queue and kind in {@link JobStats}. */
export interface JobGroupStats {
  readonly queue: string;
  /** `null` for the jobs without a kind. */
  readonly kind: string | null;
  readonly byState: Readonly<Record<JobState, number>>;
  /** Claims that took one of these jobs over from a worker whose lease had expired. */
  readonly leaseExpiries: number;
  readonly deadByFailureClass: Readonly<Record<string, number>>;
}

/** Which parts of {@link JobStats} a read narrows: `queue` keeps `queues` and `groups` to one queue, `kind` keeps `kinds` and `groups` to one kind (`null`: the jobs without one). */
export interface JobStatsFilter {
  readonly queue?: string | undefined;
  readonly kind?: string | null | undefined;
}

/** One queue's figures in {@link JobStats}. */
export interface QueueStats {
  readonly byState: Readonly<Record<JobState, number>>;
  readonly leased: number;
  readonly maxLeased: number | null;
}

const STATES: readonly JobState[] = JOB_STATES;
const REASONS: readonly DeadReason[] = DEAD_REASONS;

/**
 * Reads the figures of {@link JobStats} in a few aggregate queries (jobs by queue, kind and state;
 * dead jobs by reason and by queue, kind and failure class; the oldest dead job; the redrives;
 * the queue limits); `filter` narrows the per-queue and per-kind parts only.
 */
export async function selectJobStats(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  filter: JobStatsFilter = {},
): Promise<JobStats> {
  // The groups read the whole table; the small reads go meanwhile (on PostgreSQL on another connection).
  const [{ groups, deadFailures }, rest] = await Promise.all([selectJobGroups(db, dialect), selectDeadAndRedrives(db)]);
  const { reasonRows, oldest, last, redrives } = rest;
  const queues = await selectQueueStats(db, groups, filter.queue);
  const byState = zeroStates();
  let leaseExpiries = 0;
  for (const row of groups) {
    byState[row.state] += row.count;
    leaseExpiries += row.leaseExpiries;
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
      byFailureClass: byFailureClass(deadFailures),
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
    kinds: kindStats(groups, deadFailures, filter.kind),
    groups: groupStats(groups, deadFailures, filter),
  };
}

const zeroStates = () => Object.fromEntries(STATES.map((s) => [s, 0])) as Record<JobState, number>;
const byName = <T>(entries: Iterable<[string, T]>): Record<string, T> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const kindKey = (kind: string | null): string => kind ?? JOB_STATS_NONE;

/** Dead jobs of `rows` by failure class, by name. */
function byFailureClass(rows: readonly DeadFailureRow[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = row.errorClass ?? JOB_STATS_NONE;
    counts.set(key, (counts.get(key) ?? 0) + row.count);
  }
  return byName(counts);
}

function kindStats(
  groups: readonly JobGroupRow[],
  deadFailures: readonly DeadFailureRow[],
  only: string | null | undefined,
): Record<string, KindStats> {
  const kinds = new Map<string, { byState: Record<JobState, number>; failures: DeadFailureRow[] }>();
  const of = (kind: string | null) => {
    const key = kindKey(kind);
    return kinds.get(key) ?? kinds.set(key, { byState: zeroStates(), failures: [] }).get(key)!;
  };
  if (only !== undefined) of(only);
  for (const row of groups) if (only === undefined || row.kind === only) of(row.kind).byState[row.state] += row.count;
  for (const row of deadFailures) if (only === undefined || row.kind === only) of(row.kind).failures.push(row);
  return byName(
    [...kinds].map(([key, k]): [string, KindStats] => [
      key,
      { byState: k.byState, deadByFailureClass: byFailureClass(k.failures) },
    ]),
  );
}

function groupStats(
  groups: readonly JobGroupRow[],
  deadFailures: readonly DeadFailureRow[],
  filter: JobStatsFilter,
): JobGroupStats[] {
  const wanted = (row: { queue: string; kind: string | null }) =>
    (filter.queue === undefined || row.queue === filter.queue) && (filter.kind === undefined || row.kind === filter.kind);
  const entries = new Map<
    string,
    { queue: string; kind: string | null; byState: Record<JobState, number>; leaseExpiries: number; failures: DeadFailureRow[] }
  >();
  const of = (row: { queue: string; kind: string | null }) => {
    const key = JSON.stringify([row.queue, row.kind ?? ""]);
    return (
      entries.get(key) ??
      entries.set(key, { queue: row.queue, kind: row.kind, byState: zeroStates(), leaseExpiries: 0, failures: [] }).get(key)!
    );
  };
  for (const row of groups.filter(wanted)) {
    const entry = of(row);
    entry.byState[row.state] += row.count;
    entry.leaseExpiries += row.leaseExpiries;
  }
  for (const row of deadFailures.filter(wanted)) of(row).failures.push(row);
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...entries.values()].sort((a, b) => order(a.queue, b.queue) || order(a.kind ?? "", b.kind ?? ""));
  return sorted.map((e) => ({
    queue: e.queue,
    kind: e.kind,
    byState: e.byState,
    leaseExpiries: e.leaseExpiries,
    deadByFailureClass: byFailureClass(e.failures),
  }));
}

async function selectQueueStats(
  db: Kysely<VerqDatabase>,
  groups: readonly JobGroupRow[],
  only: string | undefined,
): Promise<Record<string, QueueStats>> {
  let limits = db.selectFrom("queues").select(["name", "max_leased"]);
  if (only !== undefined) limits = limits.where("name", "=", only);
  const entry = () => ({ byState: zeroStates(), leased: 0, maxLeased: null as number | null });
  const queues = new Map<string, ReturnType<typeof entry>>();
  const of = (name: string) => queues.get(name) ?? queues.set(name, entry()).get(name)!;
  if (only !== undefined) of(only);
  for (const row of groups) if (only === undefined || row.queue === only) of(row.queue).byState[row.state] += row.count;
  for (const row of await limits.execute()) of(row.name).maxLeased = row.max_leased === null ? null : Number(row.max_leased);
  return byName([...queues].map(([name, q]) => [name, { ...q, leased: q.byState.leased }]));
}

/** The dead jobs by reason and the one dead longest, the last redrive and how many there were: reads of a few rows each. */
async function selectDeadAndRedrives(db: Kysely<VerqDatabase>) {
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
  return { reasonRows, oldest, last, redrives };
}
