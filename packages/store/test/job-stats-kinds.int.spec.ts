import { ManualClock, isVerqError } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { JOB_STATS_NONE, JobQueue, type VerqStore } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { JobFacts, failure } from "./helpers/job-facts.ts";

const T0 = Date.UTC(2026, 2, 1, 8, 0, 0);

/**
 * A small world of kinds and failures, one step at a time: a1 (email.send) failed unexpectedly,
 * then died permanent with an HttpError; a2 (email.send, queue mail) pending; b1 (report.build)
 * died exhausted with a FetchError; b2 (report.build) leased after a lease expiry; c1 (no kind)
 * cancelled, no failure; c2 (no kind) done.
 */
async function seed(store: VerqStore): Promise<{ queue: JobQueue; clock: ManualClock }> {
  const clock = new ManualClock(T0);
  const queue = new JobQueue(store, { clock });
  const facts = new JobFacts(store, clock);
  const claim = async (id: string, owner = "w1") => {
    const job = await queue.claim(owner, { leaseMs: 1_000 });
    if (job?.id !== id) throw new Error(`expected to claim ${id}, got ${job?.id ?? "nothing"}`);
    return job.token;
  };
  await facts.enqueue({ id: "a1", kind: "email.send", maxAttempts: 1, payload: { to: "secret@example.test" } });
  let token = await claim("a1");
  clock.advance(10);
  await facts.fail("a1", token, failure("unexpected", "TypeError"));
  clock.advance(10);
  await facts.finish("a1", token, "permanent", failure("permanent", "HttpError", { status: 404 }));
  await facts.enqueue({ id: "a2", kind: "email.send", queue: "mail" });
  await facts.enqueue({ id: "b1", kind: "report.build", maxAttempts: 1 });
  token = await claim("b1");
  clock.advance(10);
  await facts.finish("b1", token, "retry", failure("retryable", "FetchError", { code: "ECONNRESET" }));
  await facts.enqueue({ id: "c1" });
  await claim("c1");
  await queue.cancel("c1", { note: "OPS-1" });
  await facts.enqueue({ id: "c2" });
  await queue.finish("c2", await claim("c2"), "ok");
  await facts.enqueue({ id: "b2", kind: "report.build" });
  await claim("b2", "w1");
  clock.advance(1_000);
  await claim("b2", "w2");
  return { queue, clock };
}

const states = (pending: number, leased: number, done: number, dead: number) => ({ pending, leased, done, dead });

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] stats() per kind and failure class; listings by kind`, () => {
    const stores = freshStores();

    it("J7: jobs by state per kind and per queue and kind, dead jobs by the class of their last failure; the same after a rebuild", async () => {
      const { store } = await stores.open(engine);
      const { queue } = await seed(store);
      const stats = await queue.stats();
      expect(stats.byState).toEqual(states(1, 1, 1, 3));
      expect(stats.leaseExpiries).toBe(1);
      expect(stats.dead.byFailureClass).toEqual({ [JOB_STATS_NONE]: 1, FetchError: 1, HttpError: 1 });
      expect(stats.kinds).toEqual({
        [JOB_STATS_NONE]: { byState: states(0, 0, 1, 1), deadByFailureClass: { [JOB_STATS_NONE]: 1 } },
        "email.send": { byState: states(1, 0, 0, 1), deadByFailureClass: { HttpError: 1 } },
        "report.build": { byState: states(0, 1, 0, 1), deadByFailureClass: { FetchError: 1 } },
      });
      expect(Object.keys(stats.kinds)).toEqual([JOB_STATS_NONE, "email.send", "report.build"]);
      expect(stats.groups).toEqual([
        {
          queue: "default",
          kind: null,
          byState: states(0, 0, 1, 1),
          leaseExpiries: 0,
          deadByFailureClass: { [JOB_STATS_NONE]: 1 },
        },
        {
          queue: "default",
          kind: "email.send",
          byState: states(0, 0, 0, 1),
          leaseExpiries: 0,
          deadByFailureClass: { HttpError: 1 },
        },
        {
          queue: "default",
          kind: "report.build",
          byState: states(0, 1, 0, 1),
          leaseExpiries: 1,
          deadByFailureClass: { FetchError: 1 },
        },
        { queue: "mail", kind: "email.send", byState: states(1, 0, 0, 0), leaseExpiries: 0, deadByFailureClass: {} },
      ]);
      expect(stats.queues).toEqual({
        default: { byState: states(0, 1, 1, 3), leased: 1, maxLeased: null },
        mail: { byState: states(1, 0, 0, 0), leased: 0, maxLeased: null },
      });

      // The projection keeps the kind and the last failure, identifiers only.
      expect(await queue.get("a1")).toMatchObject({
        kind: "email.send",
        lastFailure: {
          category: "permanent",
          errorClass: "HttpError",
          code: null,
          status: 404,
          attempt: 1,
          token: 1,
          at: T0 + 20,
        },
      });
      expect((await queue.history("a1")).map((e) => e.type)).toEqual(["job.enqueued", "job.claimed", "job.failed", "job.died"]);

      await store.rebuildProjections();
      expect(await queue.stats()).toEqual(stats);
    });

    it("a kind and a queue narrow kinds, groups and queues; the overall figures stay whole; an unknown kind is zeros", async () => {
      const { store } = await stores.open(engine);
      const { queue } = await seed(store);
      const whole = await queue.stats();
      const email = await queue.stats({ kind: "email.send" });
      expect(Object.keys(email.kinds)).toEqual(["email.send"]);
      expect(email.groups.map((g) => [g.queue, g.kind])).toEqual([
        ["default", "email.send"],
        ["mail", "email.send"],
      ]);
      expect(email.byState).toEqual(whole.byState);
      expect(email.dead).toEqual(whole.dead);
      expect(email.queues).toEqual(whole.queues);

      const kindless = await queue.stats({ kind: null });
      expect(kindless.kinds).toEqual({ [JOB_STATS_NONE]: whole.kinds[JOB_STATS_NONE] });
      expect(kindless.groups.map((g) => [g.queue, g.kind])).toEqual([["default", null]]);

      const both = await queue.stats({ queue: "mail", kind: "email.send" });
      expect(Object.keys(both.queues)).toEqual(["mail"]);
      expect(both.groups.map((g) => [g.queue, g.kind])).toEqual([["mail", "email.send"]]);

      const none = await queue.stats({ kind: "nothing.here" });
      expect(none.kinds).toEqual({ "nothing.here": { byState: states(0, 0, 0, 0), deadByFailureClass: {} } });
      expect(none.groups).toEqual([]);
    });

    it("list, deadPage and countDead take a kind (null: the jobs without one); a kind that is no kind's name is VERQ_INVALID_ARGUMENT", async () => {
      const { store } = await stores.open(engine);
      const { queue } = await seed(store);
      const ids = (jobs: readonly { id: string }[]) => jobs.map((j) => j.id);
      expect(ids(await queue.list("dead"))).toEqual(["a1", "b1", "c1"]);
      expect(ids(await queue.list("dead", { kind: "email.send" }))).toEqual(["a1"]);
      expect(ids(await queue.list("dead", { kind: null }))).toEqual(["c1"]);
      expect(ids(await queue.list("dead", { kind: "report.build", reason: "permanent" }))).toEqual([]);
      expect(ids(await queue.list("pending", { kind: "email.send" }))).toEqual(["a2"]);
      expect(ids(await queue.list("leased", { kind: "report.build" }))).toEqual(["b2"]);
      expect(ids(await queue.deadPage({ kind: "report.build" }, null, 10))).toEqual(["b1"]);
      expect(ids(await queue.deadPage({ kind: null, reason: "cancelled" }, null, 10))).toEqual(["c1"]);
      expect(await queue.countDead({ kind: "email.send" })).toBe(1);
      expect(await queue.countDead({ kind: null })).toBe(1);
      expect(await queue.countDead({ kind: "email.send", reason: "exhausted" })).toBe(0);

      const before = await queue.stats();
      for (const kind of ["", "1st", "has space", "x".repeat(65), 7]) {
        const reads = [
          queue.list("dead", { kind: kind as string }),
          queue.deadPage({ kind: kind as string }, null, 10),
          queue.countDead({ kind: kind as string }),
          queue.stats({ kind: kind as string }),
        ];
        for (const read of reads) {
          const error: unknown = await read.then(
            () => null,
            (e: unknown) => e,
          );
          expect([kind, isVerqError(error, "VERQ_INVALID_ARGUMENT")]).toEqual([kind, true]);
        }
      }
      expect(await queue.stats()).toEqual(before);
    });
  });
}
