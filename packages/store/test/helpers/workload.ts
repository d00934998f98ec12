import { isVerqError, seededRng, type FinishOutcome, type ManualClock } from "@verq/core";
import { JobQueue, type JobQueueOptions, type VerqStore } from "@verq/store";

/** Queue settings that make every path reachable and deterministic under a ManualClock. */
export function deterministicQueue(store: VerqStore, clock: ManualClock, options: JobQueueOptions = {}): JobQueue {
  return new JobQueue(store, {
    clock,
    rng: seededRng(7),
    backoff: { baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: "none" },
    redriveLimit: { max: 10_000, windowMs: 60_000 },
    ...options,
  });
}

async function claimExpecting(queue: JobQueue, id: string, owner: string, leaseMs: number): Promise<number> {
  const job = await queue.claim(owner, { leaseMs });
  if (job?.id !== id) throw new Error(`scenario expected to claim ${id}, got ${job?.id ?? "nothing"}`);
  return job.token;
}

/**
 * Puts one job into every state and history the queue can produce, in a fixed order, and
 * returns their ids: done; dead by each reason (permanent, exhausted on finish, exhausted on an
 * expired last lease, deadline); a lease taken over by a second worker (with a refused stale
 * finish); a heartbeat-extended lease; an ordered group whose dead head blocks its follower;
 * a redriven job that then finished; a retry waiting for its time; a redriven job still
 * pending (the last redrive); a fresh pending job; and one not yet due.
 *
 * The clock moves forward by less than the shortest retry delay in total, so jobs built
 * earlier never become due again while later ones are claimed.
 */
export async function buildEveryState(queue: JobQueue, clock: ManualClock): Promise<string[]> {
  const ids: string[] = [];
  const enqueue = async (
    id: string,
    extra: { maxAttempts?: number; deadline?: number; orderingKey?: string; availableAt?: number } = {},
  ) => {
    ids.push(id);
    await queue.enqueue({ id, payload: { quantity: ids.length, sku: `sku-${id}` }, ...extra });
  };

  await enqueue("done-1");
  await queue.finish("done-1", await claimExpecting(queue, "done-1", "worker-a", 30_000), "ok");

  await enqueue("dead-permanent");
  await queue.finish("dead-permanent", await claimExpecting(queue, "dead-permanent", "worker-a", 30_000), "permanent");

  await enqueue("dead-exhausted", { maxAttempts: 1 });
  await queue.finish("dead-exhausted", await claimExpecting(queue, "dead-exhausted", "worker-a", 30_000), "retry");

  await enqueue("dead-deadline", { deadline: clock.now() + 500 });
  await queue.finish("dead-deadline", await claimExpecting(queue, "dead-deadline", "worker-a", 30_000), "retry");

  // The last attempt's worker vanished: the next claim quarantines the job instead of handing it out.
  await enqueue("dead-lease-exhausted", { maxAttempts: 1 });
  await claimExpecting(queue, "dead-lease-exhausted", "worker-a", 50);
  clock.advance(50);
  if ((await queue.claim("worker-b")) !== null) throw new Error("expected the expired last attempt to die");

  await enqueue("leased-taken-over");
  await claimExpecting(queue, "leased-taken-over", "worker-a", 50);
  clock.advance(50);
  await claimExpecting(queue, "leased-taken-over", "worker-b", 600_000);
  if (await queue.finish("leased-taken-over", 1, "ok")) throw new Error("a stale finish was accepted");

  await enqueue("leased-heartbeat");
  const heartbeatToken = await claimExpecting(queue, "leased-heartbeat", "worker-a", 1_000);
  await queue.heartbeat("leased-heartbeat", heartbeatToken, 600_000);

  await enqueue("ordered-head", { orderingKey: "acct-9" });
  await enqueue("ordered-follower", { orderingKey: "acct-9" });
  await queue.finish("ordered-head", await claimExpecting(queue, "ordered-head", "worker-a", 30_000), "permanent");

  await enqueue("redriven-done");
  await queue.finish("redriven-done", await claimExpecting(queue, "redriven-done", "worker-a", 30_000), "permanent");
  clock.advance(10);
  await queue.redrive("redriven-done", { note: "OPS-1234" });
  await queue.finish("redriven-done", await claimExpecting(queue, "redriven-done", "worker-b", 30_000), "ok");
  if (await queue.finish("redriven-done", 1, "ok")) throw new Error("a pre-redrive token was accepted");

  await enqueue("cancelled-pending");
  await queue.cancel("cancelled-pending", { note: "OPS-77" });

  await enqueue("cancelled-leased");
  const cancelledToken = await claimExpecting(queue, "cancelled-leased", "worker-a", 30_000);
  await queue.cancel("cancelled-leased", { note: "OPS-78" });
  if (await queue.heartbeat("cancelled-leased", cancelledToken, 30_000)) throw new Error("a cancelled lease was extended");
  if (await queue.finish("cancelled-leased", cancelledToken, "ok")) throw new Error("a cancelled job finished ok");

  await enqueue("pending-retry", { maxAttempts: 3 });
  await queue.finish("pending-retry", await claimExpecting(queue, "pending-retry", "worker-a", 30_000), "retry");

  await enqueue("redriven-pending");
  await queue.finish("redriven-pending", await claimExpecting(queue, "redriven-pending", "worker-a", 30_000), "permanent");
  clock.advance(10);
  await queue.redrive("redriven-pending", { note: "INC#42" });

  await enqueue("pending-new");
  await enqueue("pending-later", { availableAt: clock.now() + 3_600_000 });
  // Idempotent enqueue: the same id and payload again is a no-op that writes nothing.
  await queue.enqueue({ id: "pending-new", payload: { quantity: ids.indexOf("pending-new") + 1, sku: "sku-pending-new" } });
  return ids;
}

/**
 * A seeded random workload over `jobs` ids: enqueues (some with ordering keys, some repeated),
 * claims with short and long leases, every finish outcome, stale finishes, heartbeats,
 * redrives of dead jobs, and clock steps that let leases expire and retries come due.
 */
export async function runRandomWorkload(queue: JobQueue, clock: ManualClock, seed: number, steps: number): Promise<void> {
  const rng = seededRng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const held: { id: string; token: number }[] = [];
  let next = 0;
  for (let step = 0; step < steps; step++) {
    const roll = rng();
    if (roll < 0.2) {
      const id = `w-${seed}-${next++}`;
      const orderingKey = rng() < 0.25 ? `grp-${Math.floor(rng() * 3)}` : undefined;
      await queue.enqueue({
        id,
        payload: { quantity: Math.floor(rng() * 100), note: rng() < 0.5 ? "ünïcödé ✓" : null },
        maxAttempts: 1 + Math.floor(rng() * 3),
        deadline: clock.now() + 1_000 + Math.floor(rng() * 8_000),
        ...(orderingKey === undefined ? {} : { orderingKey }),
      });
    } else if (roll < 0.45) {
      const job = await queue.claim(pick(["w1", "w2", "w3"]), { leaseMs: rng() < 0.5 ? 100 : 5_000 });
      if (job !== null) held.push({ id: job.id, token: job.token });
    } else if (roll < 0.7 && held.length > 0) {
      const lease = held.splice(Math.floor(rng() * held.length), 1)[0]!;
      await queue.finish(lease.id, lease.token, pick<FinishOutcome>(["ok", "ok", "retry", "retry", "permanent"]));
    } else if (roll < 0.75 && held.length > 0) {
      const lease = pick(held);
      await queue.heartbeat(lease.id, lease.token, 1_000);
    } else if (roll < 0.82) {
      const dead = await queue.list("dead", { limit: 3 });
      if (dead.length > 0) await queue.redrive(pick(dead).id, { note: `OPS-${step}` });
    } else if (roll < 0.85 && next > 0) {
      // A repeated enqueue of an existing id with a new payload is a conflict and writes nothing.
      try {
        await queue.enqueue({ id: `w-${seed}-0`, payload: { other: step } });
        throw new Error("a conflicting enqueue was accepted");
      } catch (error) {
        if (!isVerqError(error, "VERQ_ENQUEUE_CONFLICT")) throw error;
      }
    } else {
      clock.advance(Math.floor(rng() * 1_500));
    }
  }
}
