/**
 * What verq's statements cost on PostgreSQL below verq's code, and what the event log's part of
 * them is: a `JobWorker`'s drain of pre-enqueued jobs at batch 500 recorded and replayed on one
 * connection (`postgres-replay.ts`, which the bench's 2f row "verq's statements replayed on
 * PostgreSQL" runs too), as recorded and without the statements that append to `events` (the
 * `jobs` rows are written as before: what is left is a queue with no log). Each round records a
 * new drain and replays both, alternating which goes first. Backs docs/performance.md.
 *
 *   npx tsx bench/schema-cost/measure-postgres.ts [--rounds 3] [--jobs 20000] [--batch 500]
 */
import { parseArgs } from "node:util";
import { POOL_SIZE, CONCURRENCY } from "../src/postgres-settings.ts";
import { percentile } from "../src/scenario.ts";
import { enqueueAll } from "../src/scenarios/verq-jobs.ts";
import { drainInRounds, recordAndReplay, type ReplayVariant } from "./postgres-replay.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    jobs: { type: "string", default: "20000" },
    batch: { type: "string", default: "500" },
  },
});
const rounds = Number(args.rounds);
const jobs = Number(args.jobs);
const batch = Number(args.batch);

const VARIANTS: readonly ReplayVariant[] = [
  { name: "verq's statements as recorded" },
  { name: "without the appends to events", keep: (s) => !/^\s*insert\s+into\s+"?events"?\b/i.test(s.text) },
];

const median = (xs: readonly number[]): number => percentile(xs, 50);
const figures = new Map<string, { rate: number[]; node: number[]; postgres: number[]; trips: number[] }>();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
  const results = await recordAndReplay(
    POOL_SIZE,
    (q) => enqueueAll(q, jobs),
    (q) => drainInRounds(q, jobs, batch, CONCURRENCY),
    order,
  );
  for (const [name, r] of results) {
    if (r.states.done !== jobs) throw new Error(`${name}: the replay left ${JSON.stringify(r.states)}, not ${jobs} done`);
    const f = figures.get(name) ?? { rate: [], node: [], postgres: [], trips: [] };
    f.rate.push(jobs / (r.ms / 1000));
    f.node.push(r.cost.nodeCpuUs / jobs);
    f.postgres.push((r.cost.postgresCpuUs ?? Number.NaN) / jobs);
    f.trips.push(r.cost.roundTrips / jobs);
    figures.set(name, f);
  }
  console.error(`[schema-cost:postgres] round ${round + 1}/${rounds}`);
}
console.log(`${jobs} jobs, batch ${batch}, ${rounds} rounds (medians)\n`);
console.log("| replay | jobs/s | µs CPU/job (node) | µs CPU/job (postgres) | round trips/job |");
console.log("|---|---:|---:|---:|---:|");
for (const { name } of VARIANTS) {
  const f = figures.get(name)!;
  const r = (x: number, d = 1) => x.toLocaleString("en-US", { maximumFractionDigits: d });
  console.log(
    `| ${name} | ${r(median(f.rate), 0)} | ${r(median(f.node))} | ${r(median(f.postgres))} | ${r(median(f.trips), 3)} |`,
  );
}
