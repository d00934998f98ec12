import { ManualClock, Retryable, seededRng } from "@verq/core";
import { JobQueue, type JobStats, type VerqStore } from "@verq/store";

/**
 * The story of SPEC J3–J8 on a real SQLite file, told in a few lines: enqueue, claim with token
 * 1, a worker that dies, reclaim at the lease boundary with token 2, a stale finish refused, a
 * job that exhausts its attempts and one that hits its deadline, an audited redrive, and the
 * dead-letter statistics. A manual clock makes every boundary exact.
 */
export async function runJobsDemo(store: VerqStore, print: (line: string) => void): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
  const queue = new JobQueue(store, {
    clock,
    rng: seededRng(7),
    backoff: { baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: "none" },
    redriveLimit: { max: 10, windowMs: 60_000 },
  });
  const start = clock.now();
  const at = (ms: number) => `t+${((ms - start) / 1000).toFixed(3)}s`;
  const t = () => at(clock.now());

  await queue.enqueue({ id: "cake-7", payload: { quantity: 7 }, maxAttempts: 3 });
  print(`${t()} enqueue cake-7 {quantity: 7}, 3 attempts`);
  const a = await queue.claim("worker-A", { leaseMs: 30_000 });
  if (a === null) throw new Error("demo: nothing to claim");
  print(`${t()} worker-A claims cake-7 with token ${a.token}, lease until ${at(a.leaseUntil)}`);
  print(`${t()} worker-A sends the delivery, then dies before finishing (no finally, no finish)`);

  clock.set(a.leaseUntil - 1);
  const early = await queue.claim("worker-B", { leaseMs: 30_000 });
  print(`${t()} worker-B at leaseUntil - 1ms claims ${early === null ? "nothing: the lease is still held" : early.id}`);
  clock.set(a.leaseUntil);
  const b = await queue.claim("worker-B", { leaseMs: 30_000 });
  if (b === null) throw new Error("demo: the boundary claim failed");
  print(`${t()} worker-B at leaseUntil claims cake-7 with token ${b.token} (the boundary belongs to the next claimer)`);
  print(`${t()} worker-B finishes ok with token ${b.token}: ${await queue.finish("cake-7", b.token, "ok")}`);
  print(
    `${t()} worker-A comes back late, finish with token ${a.token}: ${await queue.finish("cake-7", a.token, "ok")} (stale, refused)`,
  );

  await queue.enqueue({ id: "cookie-3", payload: { quantity: 3 }, maxAttempts: 2 });
  for (let i = 0; i < 2; i++) {
    await queue.runOnce("worker-B", () => Promise.reject(new Retryable("oven busy")));
    clock.advance(60_000);
  }
  const cookie = await queue.get("cookie-3");
  print(`${t()} cookie-3 fails twice with 2 attempts: ${cookie?.state}(${cookie?.reason})`);

  await queue.enqueue({ id: "tart-5", payload: { quantity: 5 }, maxAttempts: 10, deadline: clock.now() + 2_500 });
  for (let i = 0; i < 3; i++) {
    await queue.runOnce("worker-B", () => Promise.reject(new Retryable("supplier timeout")));
    clock.advance(1_000);
  }
  const tart = await queue.get("tart-5");
  print(
    `${t()} tart-5 keeps failing; its next retry would pass the deadline: ${tart?.state}(${tart?.reason}) after ${tart?.attempts} of 10 attempts`,
  );

  print(`${t()} ${describeDeadLetters(await queue.stats())}`);
  const redrive = await queue.redrive("cookie-3", { note: "OPS-1234" });
  const back = await queue.get("cookie-3");
  print(
    `${t()} operator redrives cookie-3 with note ${redrive.note}: ${back?.state}, attempts ${back?.attempts}, token kept at ${back?.token} (audit: previous token ${redrive.previousToken})`,
  );
  try {
    await queue.redrive("cake-7", { note: "OPS-1235" });
  } catch (error) {
    print(`${t()} redrive of cake-7 (done) refused: ${(error as { code: string }).code}`);
  }

  print(`${t()} ${describeDeadLetters(await queue.stats())}`);
}

function describeDeadLetters(stats: JobStats): string {
  const reasons = Object.entries(stats.dead.byReason)
    .filter(([, v]) => v.count > 0)
    .map(([reason, v]) => `${reason}=${v.count} (${Math.round(v.ratio * 100)}%)`)
    .join(", ");
  const last =
    stats.lastRedrive === null
      ? "none"
      : `${stats.lastRedrive.jobId} ${stats.lastRedrive.note} -> ${stats.lastRedrive.resultState ?? "?"}`;
  return (
    `DLQ: dead=${stats.dead.count} [${reasons || "none"}], oldest=${stats.dead.oldest?.id ?? "none"}, last redrive=${last}, ` +
    `lease expiries=${stats.leaseExpiries}, stale finishes refused=${stats.staleFinishesRefused}`
  );
}
