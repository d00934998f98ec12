/**
 * 6c: a worker's round on PostgreSQL as the jobs table grows. A verq store (a schema of its own)
 * is filled with finished jobs up to each size; at each, rounds of `finishAndClaim` (record the
 * last round's 100 outcomes and claim the next 100, one transaction, as `JobWorker` does) over
 * 100 pending jobs are timed, p50 per size. A second store, the reference, stays at the first
 * size, and the two take turns round by round: the sizes are measured one after another, a
 * minute apart at the largest (its fill), and on a shared machine the load moves more in that
 * minute than the round does, so the target compares each size with the reference measured in
 * the same rounds. Flat because a claim walks the partial index
 * `jobs_pending_due` (pending jobs only) and a finish reads and writes by primary key: finished
 * jobs and their events are in neither path.
 *
 * The finished jobs are verq's own: one job is enqueued, claimed and finished through
 * `JobQueue`, then its three events and its `jobs` row are copied in SQL under new ids (the
 * enqueued event's data names its id, and the row its enqueue position), a chunk per
 * transaction, which is far faster than a million lifecycles through a worker. The first size
 * is checked with `checkStore`, which replays every stream through the job machine and compares
 * the `jobs` rows: a copy that verq would not have written fails the run. After each fill the
 * tables are analysed (as autovacuum would after such a change) and a `CHECKPOINT` writes the
 * fill back, so that the rounds do not pay for it; a few rounds then run untimed, and the
 * timed ones after them.
 */
import { checkStore, JobQueue, openStore, type ClaimedJob, type VerqStore } from "@verq/store";
import { admin, createTestDatabase, type TestDatabase } from "@verq/testing";
import { PG_GROUPS, POOL_SIZE, postgresAvailable, postgresDurability } from "../postgres-settings.ts";
import { lower, percentile, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";
import { jobId } from "../sqlite-files.ts";

/** Jobs per round, and pending when each round claims. */
const ROUND = 100;
/** Finished jobs copied per transaction. */
const CHUNK = 100_000;
const TEMPLATE = "template";
const FULL_SIZES = [10_000, 100_000, 1_000_000] as const;
const QUICK_SIZES = [300, 1_000, 3_000] as const;
/** Timed rounds per size, after untimed ones (full run; --quick). */
const ROUNDS = { full: 100, quick: 5 } as const;
const WARM_UP = { full: 5, quick: 1 } as const;

const JOB_COLUMNS =
  "payload, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, ordering_key, lease_expiries, enqueued_at, updated_at, version, queue, priority, kind, last_failure";

/** Copies the template's events and row as finished jobs `fill-<from>` … `fill-<from + count - 1>`, in one transaction. */
async function copyFinishedJobs(schema: string, from: number, count: number): Promise<void> {
  await admin(`set search_path to ${schema};
    with ids as (
      select g, 'fill-' || lpad(g::text, 9, '0') as id from generate_series(${from}, ${from + count - 1}) g
    ), copied as (
      insert into events (stream_type, stream_id, version, type, data, at_ms)
      select e.stream_type, ids.id, e.version, e.type,
        case when e.type = 'job.enqueued' then replace(e.data, '"id":"${TEMPLATE}"', '"id":"' || ids.id || '"') else e.data end,
        e.at_ms
      from ids cross join events e
      where e.stream_type = 'job' and e.stream_id = '${TEMPLATE}'
      order by ids.g, e.version
      returning stream_id, version, position
    )
    insert into jobs (id, enqueue_position, ${JOB_COLUMNS})
    select copied.stream_id, copied.position, ${JOB_COLUMNS.split(", ")
      .map((c) => `j.${c}`)
      .join(", ")}
    from copied cross join jobs j
    where j.id = '${TEMPLATE}' and copied.version = 1`);
}

/** A store whose rounds the run times: its schema, its queue, the jobs its last round claimed. */
interface Probe {
  readonly database: TestDatabase;
  readonly store: VerqStore;
  readonly queue: JobQueue;
  /** Finished jobs in its table so far (the template first). */
  finished: number;
  held: ClaimedJob[];
  rounds: number;
}

/** A store in a schema of its own with one finished lifecycle through verq: the template its fill copies. */
async function openProbe(): Promise<Probe> {
  const database = await createTestDatabase("postgres");
  try {
    const store = await openStore({ url: database.db, poolSize: POOL_SIZE });
    const queue = new JobQueue(store);
    await queue.enqueue({ id: TEMPLATE, payload: { quantity: 0 } });
    const job = await queue.claim("filler");
    if (job === null || !(await queue.finish(job.id, job.token, "ok")))
      throw new Error("verq on PostgreSQL: the template job did not finish");
    return { database, store, queue, finished: 1, held: [], rounds: 0 };
  } catch (error) {
    await database.dispose();
    throw error;
  }
}

async function closeProbe(probe: Probe): Promise<void> {
  try {
    await probe.store.close();
  } finally {
    await probe.database.dispose();
  }
}

/** Fills `probe` with finished jobs up to `jobs`, then analyses its tables; returns the ms the copies took. */
async function fill(probe: Probe, jobs: number): Promise<number> {
  const start = performance.now();
  for (; probe.finished < jobs; probe.finished += Math.min(CHUNK, jobs - probe.finished))
    await copyFinishedJobs(probe.database.schema ?? "", probe.finished, Math.min(CHUNK, jobs - probe.finished));
  const ms = since(start);
  await admin(`set search_path to ${probe.database.schema}; analyze events; analyze jobs`);
  return ms;
}

/**
 * One round on `probe`: `ROUND` jobs enqueued (not timed), then finishAndClaim of the last
 * round's jobs and `ROUND` new ones, timed; returns its ms.
 */
async function round(probe: Probe): Promise<number> {
  await probe.queue.enqueueMany(
    Array.from({ length: ROUND }, (_, i) => ({ id: jobId(`probe-${probe.rounds}`, i), payload: { quantity: i } })),
  );
  const start = performance.now();
  const { accepted, claimed } = await probe.queue.finishAndClaim(
    probe.held.map((job) => ({ id: job.id, token: job.token, outcome: "ok" as const })),
    "probe",
    ROUND,
  );
  const ms = since(start);
  if (accepted.includes(false) || claimed.length !== ROUND)
    throw new Error("verq on PostgreSQL: a round did not finish and claim 100");
  probe.held = claimed;
  probe.rounds++;
  return ms;
}

/** `warmUp` untimed rounds on each probe, then `rounds` timed ones, the probes taking turns (first one, then the other); each probe's samples. */
async function interleavedRounds(probes: readonly Probe[], warmUp: number, rounds: number): Promise<number[][]> {
  // The first round of a probe records nothing (no last round yet): it is always an untimed one.
  for (let r = 0; r < Math.max(1, warmUp); r++) for (const probe of probes) await round(probe);
  const samples = probes.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? probes.keys() : [...probes.keys()].reverse();
    for (const i of order) samples[i]?.push(await round(probes[i] as Probe));
  }
  return samples;
}

async function checked(probe: Probe): Promise<void> {
  const report = await checkStore(probe.store);
  const streams = report.checked.byStreamType.job?.streams ?? 0;
  if (!report.ok || streams < probe.finished) {
    throw new Error(
      `verq on PostgreSQL: the copied jobs do not check (${streams} job streams; ${report.findings.length} findings, first: ${JSON.stringify(report.findings[0])})`,
    );
  }
}

/** The name of the reference's figure beside the growing store at `jobs`. */
const referenceFigure = (first: number, jobs: number): string =>
  `reference round p50 ms (${first.toLocaleString("en")} jobs) beside ${jobs.toLocaleString("en")}`;

async function roundByTableSize(size: BenchSize): Promise<Record<string, Figure>> {
  const sizes = size.quick ? QUICK_SIZES : FULL_SIZES;
  const [rounds, warmUp] = size.quick ? [ROUNDS.quick, WARM_UP.quick] : [ROUNDS.full, WARM_UP.full];
  const first = sizes[0];
  const growing = await openProbe();
  try {
    const reference = await openProbe();
    try {
      await fill(reference, first);
      const figures: Record<string, Figure> = {};
      for (const [index, jobs] of sizes.entries()) {
        const fillMs = await fill(growing, jobs);
        // The fill's pages written back now, not by the rounds (a server that refuses is said so).
        await admin("checkpoint").catch((error: unknown) =>
          process.stderr.write(
            `[bench] 6c: CHECKPOINT refused (${error instanceof Error ? error.message : String(error)}): the rounds may write the fill back\n`,
          ),
        );
        if (index === 0) for (const probe of [growing, reference]) await checked(probe);
        const [grown, beside] = await interleavedRounds([growing, reference], warmUp, rounds);
        figures[`round p50 ms at ${jobs.toLocaleString("en")} jobs`] = lower(percentile(grown ?? [], 50), "ms");
        figures[referenceFigure(first, jobs)] = lower(percentile(beside ?? [], 50), "ms");
        process.stderr.write(
          `[bench] 6c: ${jobs.toLocaleString("en")} finished jobs (filled in ${(fillMs / 1000).toFixed(1)} s)\n`,
        );
      }
      return figures;
    } finally {
      await closeProbe(reference);
    }
  } finally {
    await closeProbe(growing);
  }
}

export function verqPostgresGrowthScenarios(): Scenario[] {
  return [
    {
      group: PG_GROUPS.tableGrowth,
      system: "verq on PostgreSQL",
      rounds: 1,
      get settings() {
        return `finishAndClaim of ${ROUND} (record the last round's ${ROUND} outcomes, claim ${ROUND}: one transaction, as JobWorker's round) over ${ROUND} pending jobs, p50 of ${ROUNDS.full} rounds after ${WARM_UP.full} untimed (${ROUNDS.quick} after ${WARM_UP.quick} in --quick) with ${FULL_SIZES.map((n) => n.toLocaleString("en")).join(", ")} finished jobs in the table (${QUICK_SIZES.map((n) => n.toLocaleString("en")).join(", ")} in --quick), taking turns round by round with a reference store held at the first size (its p50 beside each size is the reference row; the target compares each size with it); the finished jobs are copies in SQL of one lifecycle verq ran (its three events and its jobs row under new ids, ${CHUNK.toLocaleString("en")} per transaction), checked with checkStore at the first size (both stores); after each fill the tables analysed and a CHECKPOINT, so the rounds do not write the fill back; a schema of its own for each store, dropped afterwards; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: 1, poolSize: POOL_SIZE },
      available: postgresAvailable,
      run: roundByTableSize,
    },
  ];
}
