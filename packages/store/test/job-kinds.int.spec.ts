import type { StandardSchemaV1 } from "@standard-schema/spec";
import { ManualClock, isVerqError } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { JobQueue, JobWorker, defineJobKind, type JobWorkerResult, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/** The error `work` throws, as `code: message`; a test fails when it throws none. */
async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    return isVerqError(error) ? `${error.code}: ${error.message}` : `not a VerqError: ${String(error)}`;
  }
  return "no error";
}

const SECRET = "ada.lovelace@example.test";
const sendEmail = defineJobKind({
  name: "send-email",
  schema: z.object({ to: z.email(), tries: z.number().int().default(1), tags: z.array(z.string()).optional() }),
});
const resize = defineJobKind({
  name: "resize",
  schema: z.object({ image: z.string(), width: z.number() }),
  id: (payload) => `resize-${payload.image}-${payload.width}`,
});

/** A Standard Schema whose validation is asynchronous, written by hand (no library): trims a `name`. */
const asyncSchema: StandardSchemaV1<{ name: string }, { name: string }> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: async (value) => {
      await new Promise((resolve) => setImmediate(resolve));
      const name = (value as { name?: unknown } | null)?.name;
      return typeof name === "string" ? { value: { name: name.trim() } } : { issues: [{ message: "no", path: ["name"] }] };
    },
  },
};

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`job kinds [${engine}]`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000 });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const everything = async () => ({
      jobs: await store.db.selectFrom("jobs").selectAll().orderBy("id").execute(),
      events: await store.db.selectFrom("events").selectAll().orderBy("position").execute(),
    });

    describe("enqueue({ kind })", () => {
      it("keeps the kind in the event and the row; none unless told; another kind for an id is a conflict", async () => {
        await queue.enqueue({ id: "a", payload: 1, kind: "send-email" });
        await queue.enqueue({ id: "b", payload: 2 });
        expect(await queue.get("a")).toMatchObject({ kind: "send-email" });
        expect(await queue.get("b")).toMatchObject({ kind: null });
        expect((await queue.history("a"))[0]?.data).toMatchObject({ kind: "send-email" });
        expect((await queue.history("b"))[0]?.data).not.toHaveProperty("kind");
        expect(await queue.enqueue({ id: "a", payload: 1, kind: "send-email" })).toMatchObject({ created: false });
        const before = await everything();
        for (const kind of ["resize", undefined]) {
          expect(await failure(() => queue.enqueue({ id: "a", payload: 1, ...(kind === undefined ? {} : { kind }) }))).toMatch(
            /^VERQ_ENQUEUE_CONFLICT/,
          );
        }
        expect(await failure(() => queue.enqueue({ id: "b", payload: 2, kind: "resize" }))).toMatch(/^VERQ_ENQUEUE_CONFLICT/);
        expect(await everything()).toEqual(before);
      });

      it("a bad kind name is VERQ_INVALID_ARGUMENT and writes nothing, in a batch too", async () => {
        const before = await everything();
        for (const kind of ["", "1st", "send email", "a".repeat(65), "é", null, 7]) {
          expect(await failure(() => queue.enqueue({ id: "x", payload: 1, kind: kind as string }))).toMatch(
            /^VERQ_INVALID_ARGUMENT: a job kind is a letter/,
          );
        }
        expect(
          await failure(() =>
            queue.enqueueMany([
              { id: "ok", payload: 1, kind: "fine" },
              { id: "bad", payload: 1, kind: "no way" },
            ]),
          ),
        ).toMatch(/^VERQ_INVALID_ARGUMENT/);
        expect(await everything()).toEqual(before);
      });
    });

    describe("claims limited to kinds", () => {
      beforeEach(async () => {
        // Enqueue order: a kindless job, an email, a resize; all due at once.
        await queue.enqueue({ id: "plain", payload: 0 });
        await queue.enqueue({ id: "mail", payload: 1, kind: "send-email" });
        await queue.enqueue({ id: "img", payload: 2, kind: "resize" });
      });

      const claimAll = async (kinds?: { names: string[]; kindless: boolean }) =>
        (await queue.claimMany("w", 10, kinds === undefined ? {} : { kinds })).map((job) => job.id).sort();

      it("a claimer gets only the kinds it names, and jobs without a kind only when it says so; without kinds, everything", async () => {
        expect(await claimAll({ names: ["resize"], kindless: false })).toEqual(["img"]);
        expect(await claimAll({ names: [], kindless: true })).toEqual(["plain"]);
        expect(await claimAll({ names: ["resize", "nothing-like-it"], kindless: true })).toEqual([]);
        expect(await claimAll()).toEqual(["mail"]);
        expect(await queue.get("mail")).toMatchObject({ state: "leased", token: 1 });
      });

      it("names and kindless together, in one claim; a job of a kind nobody handles stays pending, untouched", async () => {
        expect(await claimAll({ names: ["send-email"], kindless: true })).toEqual(["mail", "plain"]);
        expect(await queue.get("img")).toMatchObject({ state: "pending", token: 0, attempts: 0, version: 1 });
        expect(await queue.claim("w", { kinds: { names: ["send-email"], kindless: true } })).toBeNull();
      });

      it("an expired lease is taken over only by a claimer that handles its kind", async () => {
        await queue.claimMany("w1", 10);
        clock.advance(1_000);
        expect(await claimAll({ names: ["resize"], kindless: false })).toEqual(["img"]);
        expect(await queue.get("mail")).toMatchObject({ state: "leased", owner: "w1", token: 1 });
        expect(await queue.get("plain")).toMatchObject({ state: "leased", owner: "w1", token: 1 });
        expect(await claimAll({ names: [], kindless: true })).toEqual(["plain"]);
        expect(await queue.get("plain")).toMatchObject({ owner: "w", token: 2, leaseExpiries: 1 });
      });

      it("the search itself leaves other kinds out: jobs nobody here handles, ahead in claim order, hide nothing", async () => {
        // More jobs of another kind, higher in priority, than one search reads: refused one by one,
        // they would fill every search and the claim would come back empty.
        await queue.enqueueMany(
          Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, payload: i, kind: "transcode", priority: 9 })),
        );
        expect((await queue.claim("w", { kinds: { names: ["resize"], kindless: false } }))?.id).toBe("img");
        await queue.claimMany("w1", 30, { kinds: { names: ["transcode"], kindless: false } });
        clock.advance(1_000);
        // Twenty expired leases of another kind come first among the expired ones; the claim still finds "plain".
        await queue.claimMany("w1", 1, { kinds: { names: [], kindless: true } });
        clock.advance(1_000);
        expect((await queue.claim("w2", { kinds: { names: [], kindless: true } }))?.id).toBe("plain");
        expect(await queue.get("t0")).toMatchObject({ state: "leased", owner: "w1", token: 1 });
      });

      it("bad kinds are VERQ_INVALID_ARGUMENT before anything is read or written", async () => {
        const before = await everything();
        for (const kinds of [
          { names: [], kindless: false },
          { names: ["no way"], kindless: false },
          { names: "resize", kindless: false },
          { names: ["resize"] },
          { names: Array.from({ length: 101 }, (_, i) => `k${i}`), kindless: false },
          null,
        ]) {
          expect(await failure(() => queue.claim("w", { kinds: kinds as never }))).toMatch(/^VERQ_INVALID_ARGUMENT/);
          expect(await failure(() => queue.finishAndClaim([], "w", 1, { kinds: kinds as never }))).toMatch(
            /^VERQ_INVALID_ARGUMENT/,
          );
        }
        expect(await everything()).toEqual(before);
      });
    });

    describe("enqueue(kind, payload, options)", () => {
      it("validates before anything is written: VERQ_INVALID_PAYLOAD names the failing paths, never a value", async () => {
        const before = await everything();
        const error = await failure(() =>
          queue.enqueue(sendEmail, { to: SECRET.replace("@", " at "), tries: 1.5, tags: ["ok", 7] } as never),
        );
        expect(error).toBe(
          "VERQ_INVALID_PAYLOAD: the payload does not match the schema of job kind send-email at $.to, $.tries, $.tags[1]",
        );
        expect(error).not.toContain("lovelace");
        expect(await failure(() => queue.enqueue(sendEmail, "not an object" as never))).toBe(
          "VERQ_INVALID_PAYLOAD: the payload does not match the schema of job kind send-email at $",
        );
        // Inside a service's transaction the refusal comes before any write, so its rows stay its own.
        expect(
          await failure(() =>
            store.transaction((trx) => queue.enqueue(resize, { image: "x", width: "wide" } as never, { id: "r", trx })),
          ),
        ).toMatch(/^VERQ_INVALID_PAYLOAD: .* at \$\.width$/);
        expect(await failure(() => queue.enqueueMany(sendEmail, [{ to: SECRET }, { to: "nope" }]))).toMatch(
          /^VERQ_INVALID_PAYLOAD/,
        );
        expect(await everything()).toEqual(before);
      });

      it("stores the schema's output with the kind, and the job's options; the id is the option's, else the kind's, else a UUID", async () => {
        const named = await queue.enqueue(
          sendEmail,
          { to: SECRET },
          { id: "welcome-1", queue: "mail", priority: 5, maxAttempts: 2, availableAt: T0 + 10, orderingKey: "u1" },
        );
        expect(named).toMatchObject({
          created: true,
          job: {
            id: "welcome-1",
            kind: "send-email",
            payload: { to: SECRET, tries: 1 },
            queue: "mail",
            priority: 5,
            maxAttempts: 2,
            availableAt: T0 + 10,
            orderingKey: "u1",
          },
        });
        const byKind = await queue.enqueue(resize, { image: "cat.png", width: 200 });
        expect(byKind.job).toMatchObject({ id: "resize-cat.png-200", kind: "resize", payload: { image: "cat.png", width: 200 } });
        // The same payload again is the same job: a no-op. Without an id, every enqueue is a new job.
        expect(await queue.enqueue(resize, { image: "cat.png", width: 200 })).toMatchObject({ created: false });
        const first = await queue.enqueue(sendEmail, { to: SECRET });
        const second = await queue.enqueue(sendEmail, { to: SECRET });
        expect(first.job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(second.job.id).not.toBe(first.job.id);
        expect((await queue.stats()).total).toBe(4);
      });

      it("awaits an asynchronous schema, and refuses an output that is not plain JSON", async () => {
        const named = defineJobKind({ name: "greet", schema: asyncSchema, id: (p) => `greet-${p.name}` });
        expect((await queue.enqueue(named, { name: "  ada " })).job).toMatchObject({ id: "greet-ada", payload: { name: "ada" } });
        expect(await failure(() => queue.enqueue(named, {} as never))).toMatch(/^VERQ_INVALID_PAYLOAD: .* at \$\.name$/);
        const dated = defineJobKind({ name: "dated", schema: z.object({ at: z.coerce.date() }) });
        expect(await failure(() => queue.enqueue(dated, { at: "2026-01-01" }, { id: "d" }))).toMatch(
          /^VERQ_INVALID_PAYLOAD: the payload must be plain JSON; found a class instance at \$\.at/,
        );
        expect(await queue.get("d")).toBeNull();
      });

      it("enqueueMany(kind, payloads) writes them in one go, each under its kind's id; an id for many is refused", async () => {
        const results = await queue.enqueueMany(resize, [
          { image: "a", width: 1 },
          { image: "b", width: 2 },
        ]);
        expect(results.map((r) => [r.created, r.job.id, r.job.kind])).toEqual([
          [true, "resize-a-1", "resize"],
          [true, "resize-b-2", "resize"],
        ]);
        expect(await queue.enqueueMany(resize, [])).toEqual([]);
        expect(await failure(() => queue.enqueueMany(resize, [{ image: "c", width: 3 }], { id: "x" } as never))).toBe("no error");
        expect(
          await failure(() =>
            queue.enqueueMany(
              resize,
              [
                { image: "d", width: 4 },
                { image: "e", width: 5 },
              ],
              { id: "x" } as never,
            ),
          ),
        ).toMatch(/^VERQ_INVALID_ARGUMENT: one id names one job/);
      });

      it("defineJobKind refuses a bad name, a schema that is not a Standard Schema, and an id that is not a function", () => {
        const schema = z.object({});
        const define = (definition: unknown) => () => defineJobKind(definition as never);
        expect(define({ name: "bad name", schema })).toThrow(expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }));
        expect(define({ name: "ok", schema: { parse: () => 1 } })).toThrow(/Standard Schema \(v1\)/);
        expect(define({ name: "ok", schema: { "~standard": { version: 2, validate: () => ({}) } } })).toThrow(/Standard Schema/);
        expect(define({ name: "ok", schema, id: "fixed" })).toThrow(/id must be a function/);
        expect(define(undefined)).toThrow(expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }));
        const kind = defineJobKind({ name: "ok", schema });
        expect(() => kind.handler("nope" as never)).toThrow(/handler of kind ok must be a function/);
        expect(() => kind.handler(() => true, { classify: 1 as never })).toThrow(/classify must be a function/);
      });
    });

    describe("JobWorker with kind handlers", () => {
      const results: JobWorkerResult[] = [];
      const seen: string[] = [];
      beforeEach(async () => {
        results.length = 0;
        seen.length = 0;
        await queue.enqueue({ id: "plain", payload: 0 });
        await queue.enqueue(sendEmail, { to: SECRET }, { id: "mail" });
        await queue.enqueue(resize, { image: "cat.png", width: 10 });
        await queue.enqueue({ id: "unknown", payload: 1, kind: "transcode" });
      });

      const options = { owner: "w", logger: null, onFinished: (r: JobWorkerResult) => results.push(r) };
      const mail = sendEmail.handler((job) => {
        seen.push(`mail:${job.id}:${job.payload.to}:${job.payload.tries}`);
        return true;
      });
      const states = async (): Promise<Record<string, string | undefined>> => {
        const ids = ["plain", "mail", "resize-cat.png-10", "unknown"];
        const jobs = await Promise.all(ids.map((id) => queue.get(id)));
        return Object.fromEntries(ids.map((id, i) => [id, jobs[i]?.state]));
      };

      it("with handlers only, it works their kinds and leaves the rest pending: jobs without a kind and unknown kinds", async () => {
        const report = await new JobWorker(queue, { ...options, handlers: [mail] }).drain();
        expect(report).toMatchObject({ claimed: 1, ok: 1 });
        expect(seen).toEqual([`mail:mail:${SECRET}:1`]);
        expect(results.map((r) => [r.id, r.kind, r.outcome])).toEqual([["mail", "send-email", "ok"]]);
        expect(await states()).toEqual({ plain: "pending", mail: "done", "resize-cat.png-10": "pending", unknown: "pending" });
      });

      it("with handlers and a sender, jobs without a kind go to the sender; a kind nobody handles still waits", async () => {
        const sender = (job: { id: string; kind: string | null }) => seen.push(`sender:${job.id}:${job.kind}`) > 0;
        const shrink = resize.handler((job) => seen.push(`resize:${job.payload.image}:${job.payload.width}`) > 0);
        const report = await new JobWorker(queue, { ...options, handlers: [mail, shrink], sender }).drain();
        expect(report).toMatchObject({ claimed: 3, ok: 3 });
        expect(seen.sort()).toEqual([`mail:mail:${SECRET}:1`, "resize:cat.png:10", "sender:plain:null"]);
        expect(await states()).toEqual({ plain: "done", mail: "done", "resize-cat.png-10": "done", unknown: "pending" });
      });

      it("with a sender only, the sender gets every job, whatever its kind", async () => {
        const report = await new JobWorker(queue, { ...options, sender: (job) => seen.push(job.id) > 0 }).drain();
        expect(report).toMatchObject({ claimed: 4, ok: 4 });
        expect(seen.sort()).toEqual(["mail", "plain", "resize-cat.png-10", "unknown"]);
      });

      it("each handler's classify maps its own errors; the worker's classify is the sender's", async () => {
        class Refused extends Error {}
        const refusing = resize.handler(
          () => {
            throw new Refused("resize refused");
          },
          { classify: (error) => (error instanceof Refused ? "permanent" : undefined) },
        );
        const failing = sendEmail.handler(() => {
          throw new Refused("mail refused");
        });
        const report = await new JobWorker(queue, {
          ...options,
          handlers: [refusing, failing],
          sender: () => {
            throw new Refused("plain refused");
          },
          classify: (error) => (error instanceof Refused ? "retry" : undefined),
        }).drain();
        expect(report).toMatchObject({ claimed: 3, permanent: 1, retry: 1, leftLeased: 1 });
        expect(await queue.get("resize-cat.png-10")).toMatchObject({ state: "dead", reason: "permanent" });
        expect(await queue.get("plain")).toMatchObject({ state: "pending", attempts: 1 });
        // The mail handler declared no classifier: J5's rule, the failure recorded and the job left leased.
        expect(await queue.get("mail")).toMatchObject({
          state: "leased",
          lastFailure: { category: "unexpected", errorClass: "Refused", attempt: 1, token: 1 },
        });
      });

      it("refuses a worker with neither sender nor handlers, a kind twice, and a malformed handler", () => {
        const worker = (extra: object) => () => new JobWorker(queue, { owner: "w", ...extra });
        const invalid: unknown = expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" });
        expect(worker({})).toThrow(/needs a sender function or kind handlers/);
        expect(worker({ handlers: [] })).toThrow(/needs a sender function or kind handlers/);
        expect(worker({ handlers: [mail, sendEmail.handler(() => true)] })).toThrow(/two handlers for job kind send-email/);
        expect(worker({ handlers: [{ kind: "bad kind", handle: () => true }] })).toThrow(invalid);
        expect(worker({ handlers: [{ kind: "k", handle: "no" }] })).toThrow(/must have a handle function/);
        expect(worker({ handlers: [{ kind: "k", handle: () => true, classify: 1 }] })).toThrow(invalid);
        expect(worker({ handlers: mail })).toThrow(invalid);
        expect(worker({ sender: "no" })).toThrow(/sender must be a function/);
        expect(worker({ sender: () => true, classify: "no" })).toThrow(/classify must be a function/);
        // A handler built by hand from a kind's name works like a kind's own.
        expect(worker({ handlers: [{ kind: "transcode", handle: () => true }] })).not.toThrow();
      });
    });
  });
}
