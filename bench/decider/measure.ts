/**
 * What one machine decision costs: the job decider over its compiled transition table (what the
 * store runs) against the same decider through XState's interpreter (`resolveState` and the
 * machine's own `transition` with one inert scope), in the same run, for the three decisions of
 * a job's life (enqueue from the blank job, claim, finish ok). Backs the figures for the one
 * command path in docs/performance.md.
 *
 *   npx -y pnpm@10 --filter @verq/bench decider
 */
import { createJobDecider, jobCommands, jobMachine, newJob, type Job, type JobCommand, type JobDecider } from "@verq/core";

const N = 50_000;
const ROUNDS = 5;
const table = createJobDecider();
const xstate = createJobDecider(jobMachine, "xstate");

const payload = { quantity: 7, sku: "cake" };
const enqueue = jobCommands.enqueue({ payload, maxAttempts: 5, deadline: 10_000_000, availableAt: 0, orderingKey: null, now: 0 });
const claim = jobCommands.claim({ owner: "worker-1", leaseMs: 30_000, now: 1 });
const finish = jobCommands.finish({ token: 1, outcome: "ok", retryDelayMs: 0, now: 2 });

function accepted(decide: JobDecider, state: Parameters<JobDecider>[0], command: JobCommand): Job {
  const decision = decide(state, command);
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}
const blank = newJob("j");
const pending = accepted(table, blank, enqueue);
const leased = accepted(table, pending, claim);

const cases: readonly (readonly [string, Parameters<JobDecider>[0], JobCommand])[] = [
  ["enqueue (new → pending)", blank, enqueue],
  ["claim (pending → leased)", pending, claim],
  ["finish ok (leased → done)", leased, finish],
];

/** Microseconds per decision, the median of ROUNDS rounds of N decisions each. */
function measure(decide: JobDecider, state: Parameters<JobDecider>[0], command: JobCommand): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    for (let i = 0; i < N; i++) accepted(decide, state, command);
    rounds.push(((performance.now() - started) * 1000) / N);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(ROUNDS / 2)] ?? Number.NaN;
}

// Warm both paths up before measuring either.
for (const [, state, command] of cases) {
  measure(table, state, command);
  measure(xstate, state, command);
}
console.log(
  `decision | xstate µs | table µs | speed-up   (${ROUNDS} rounds of ${N.toLocaleString("en")}, medians; Node ${process.version})`,
);
for (const [name, state, command] of cases) {
  const x = measure(xstate, state, command);
  const t = measure(table, state, command);
  console.log(`${name} | ${x.toFixed(2)} | ${t.toFixed(2)} | ${(x / t).toFixed(1)}×`);
}
