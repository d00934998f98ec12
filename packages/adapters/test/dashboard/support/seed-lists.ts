import { classifyCoreCall, type ManualClock } from "@verq/core";
import { GuidLedger, JobQueue, Schedules, type VerqStore } from "@verq/store";
import { seedDashboard } from "./seed-dashboard.ts";

/** What {@link seedLists} wrote beyond {@link seedDashboard}'s world. */
export const LISTED = {
  /** The queue with a limit: at most 3 of its jobs leased at once. */
  limited: { queue: "mail", maxLeased: 3 },
  /** An active schedule: every day at 03:00 UTC, fired once. */
  nightly: "nightly-report",
  /** A schedule removed after it was added. */
  removed: "old-report",
  /** UNKNOWN entries added to the seed's one, enough for two pages of `/ledger`. */
  unknownGuids: 60,
} as const;

const kindOf = (i: number): string | undefined => (i % 4 === 0 ? "report.build" : i % 4 === 1 ? undefined : "mail.send");
const queueOf = (i: number): string => (i % 3 === 0 ? "mail" : "default");

/**
 * {@link seedDashboard}'s world and enough jobs in every state for each listing to span pages of
 * 50: 260 jobs in two queues, three kinds (and none) and two priorities, of which 200 are claimed
 * in batches (60 finish `ok`, 60 `permanent`, 80 stay leased), then 40 more pending of mixed
 * priorities and due times; a limit on one queue; an active schedule that fired once and a
 * removed one; 60 more UNKNOWN ledger entries. Steps are a second apart on the manual clock,
 * and jobs of one batch share their times, so that every order's tie-breaker is exercised.
 */
export async function seedLists(store: VerqStore): Promise<ManualClock> {
  const clock = await seedDashboard(store);
  const queue = new JobQueue(store, { clock });
  const step = () => clock.advance(1_000);
  await queue.enqueueMany(
    Array.from({ length: 260 }, (_, i) => ({
      id: `j-${String(i).padStart(3, "0")}`,
      payload: { n: i },
      queue: queueOf(i),
      priority: i % 5 === 0 ? 5 : 0,
      maxAttempts: 3,
      ...(kindOf(i) === undefined ? {} : { kind: kindOf(i) }),
    })),
  );
  step();
  const claimed = [];
  for (let round = 0; round < 4; round++) {
    claimed.push(...(await queue.claimMany(`worker-${round}`, 50, { leaseMs: 3_600_000, queues: ["default", "mail"] })));
    step();
  }
  if (claimed.length !== 200) throw new Error(`the seed expected 200 claims, got ${claimed.length}`);
  for (const [i, job] of claimed.slice(0, 120).entries()) {
    await queue.finish(job.id, job.token, i < 60 ? "ok" : "permanent", i < 60 ? {} : { error: new RangeError("out of range") });
    if (i % 20 === 19) step();
  }
  await queue.enqueueMany(
    Array.from({ length: 40 }, (_, i) => ({
      id: `late-${String(i).padStart(2, "0")}`,
      payload: { n: i },
      queue: queueOf(i),
      priority: i % 4 === 0 ? 9 : i % 4 === 1 ? -2 : 0,
      availableAt: clock.now() + (i % 7) * 60_000,
    })),
  );
  step();
  await queue.setQueueLimit(LISTED.limited.queue, { maxLeased: LISTED.limited.maxLeased });

  const schedules = new Schedules(store, queue, { clock });
  await schedules.schedule(LISTED.nightly, { cron: "0 3 * * *", timezone: "UTC", queue: "mail" });
  await schedules.schedule(LISTED.removed, { cron: "*/5 * * * *" });
  await schedules.remove(LISTED.removed);
  // From 09:0x on 2026-01-15 to 03:30 the next day: the 03:00 slot is due and fired.
  clock.advance(Date.UTC(2026, 0, 16, 3, 30) - clock.now());
  await schedules.runDue();

  const ledger = new GuidLedger(store, { clock });
  for (let i = 0; i < LISTED.unknownGuids; i++) {
    const guid = `G-LIST-${String(i).padStart(3, "0")}`;
    await ledger.receive({ guid, request: JSON.stringify({ guid }), fingerprint: `f-${guid}`, maxAttempts: 3 });
    await ledger.send(guid);
    await ledger.record(guid, 1, classifyCoreCall(guid, { kind: "no-answer", reason: "timeout" }));
    if (i % 10 === 9) step();
  }
  return clock;
}
