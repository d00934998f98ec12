import { ManualClock } from "@verq/core";
import { JobQueue, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobFacts, failure } from "../../store/test/helpers/job-facts.ts";
import { runInProcess as verq } from "./support/cli-sandbox.ts";

/*
 * What `verq jobs show`, `list`, `dead` and `stats` say about kinds and failures, in text and in
 * JSON, on both engines: a world written through the store's command path on a manual clock,
 * then read by the CLI. No payload reaches any of it.
 */

const T0 = Date.UTC(2026, 3, 1, 12, 0, 0);
const SECRET = "card-4111-secret";
const at = (ms: number) => new Date(T0 + ms).toISOString();

/**
 * mail-1 (email.send, 2 attempts): failed unexpectedly (TypeError) under token 1, taken over after
 * its lease ran out, then died exhausted with a FetchError ECONNRESET under token 2. mail-2
 * (email.send): a retry scheduled after an HttpError 503, pending. report-1 (report.build): dead
 * permanent after an HttpError 404. plain-1 (no kind): cancelled, no failure.
 */
async function seed(store: VerqStore): Promise<void> {
  const clock = new ManualClock(T0);
  const queue = new JobQueue(store, { clock });
  const facts = new JobFacts(store, clock);
  const claim = async (id: string, owner = "w1") => {
    const job = await queue.claim(owner, { leaseMs: 1_000 });
    if (job?.id !== id) throw new Error(`expected to claim ${id}, got ${job?.id ?? "nothing"}`);
    return job.token;
  };
  await facts.enqueue({ id: "mail-1", kind: "email.send", maxAttempts: 2, payload: { card: SECRET } });
  await claim("mail-1");
  clock.advance(100);
  await facts.fail("mail-1", 1, failure("unexpected", "TypeError"));
  clock.advance(900);
  await claim("mail-1", "w2");
  clock.advance(100);
  await facts.finish("mail-1", 2, "retry", failure("retryable", "FetchError", { code: "ECONNRESET" }));
  await facts.enqueue({ id: "mail-2", kind: "email.send", payload: { card: SECRET } });
  await facts.finish("mail-2", await claim("mail-2"), "retry", failure("retryable", "HttpError", { status: 503 }), 60_000);
  await facts.enqueue({ id: "report-1", kind: "report.build", maxAttempts: 1, payload: { card: SECRET } });
  await facts.finish("report-1", await claim("report-1"), "permanent", failure("permanent", "HttpError", { status: 404 }));
  await facts.enqueue({ id: "plain-1", payload: { card: SECRET } });
  await claim("plain-1");
  await queue.cancel("plain-1", { note: "OPS-7" });
}

const lines = (out: string) => out.trimEnd().split("\n");

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq jobs: kinds and failures`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "kinds.sqlite");
      db = database.db;
      const store = await database.open();
      try {
        await seed(store);
      } finally {
        await store.close();
      }
    });
    afterEach(() => database.dispose());

    it("show prints the kind, the last failure with every field, and each failure-carrying event's failure; --json has kind and lastFailure", async () => {
      const show = await verq(["jobs", "show", "mail-1", "--db", db]);
      expect([show.code, show.err]).toEqual([0, ""]);
      const text = lines(show.out);
      expect(text.slice(0, 3)).toEqual([
        "mail-1 dead(exhausted) token=2 attempts=2/2",
        "  kind=email.send queue=default priority=0",
        `  last failure: category=retryable class=FetchError code=ECONNRESET status=- attempt=2 token=2 at=${at(1_100)}`,
      ]);
      expect(text[3]).toMatch(/^ {2}v1 \S+ job\.enqueued .*kind=email\.send$/);
      expect(text[5]).toBe(`  v3 ${at(100)} job.failed category=unexpected class=TypeError attempt=1 token=1`);
      expect(text[8]).toBe(
        `  v6 ${at(1_100)} job.died reason=exhausted category=retryable class=FetchError code=ECONNRESET attempt=2 token=2`,
      );
      expect(text).toHaveLength(9);
      expect(show.out).not.toContain(SECRET);
      expect(show.out).not.toContain("[object");

      const retried = lines((await verq(["jobs", "show", "mail-2", "--db", db])).out);
      expect(retried[2]).toBe(
        `  last failure: category=retryable class=HttpError code=- status=503 attempt=1 token=1 at=${at(1_100)}`,
      );
      expect(retried[5]).toBe(
        `  v3 ${at(1_100)} job.retryScheduled availableAt=${T0 + 61_100} category=retryable class=HttpError status=503 attempt=1 token=1`,
      );
      const plain = lines((await verq(["jobs", "show", "plain-1", "--db", db])).out);
      expect(plain.slice(1, 3)).toEqual(["  kind=(none) queue=default priority=0", "  last failure: none"]);

      const json = JSON.parse((await verq(["jobs", "show", "mail-1", "--db", db, "--json"])).out) as Record<string, unknown>;
      expect(json).toMatchObject({
        kind: "email.send",
        lastFailure: {
          category: "retryable",
          errorClass: "FetchError",
          code: "ECONNRESET",
          status: null,
          attempt: 2,
          token: 2,
          at: T0 + 1_100,
        },
      });
      const events = json["events"] as { type: string; data: Record<string, unknown> }[];
      expect(events.find((e) => e.type === "job.failed")?.data).toEqual({
        token: 1,
        attempt: 1,
        failure: { category: "unexpected", errorClass: "TypeError", code: null, status: null },
        at: T0 + 100,
      });
      expect(
        JSON.parse((await verq(["jobs", "show", "plain-1", "--db", db, "--json"])).out) as Record<string, unknown>,
      ).toMatchObject({ kind: null, lastFailure: null });
    });

    it("dead and list show the kind and the last failure class and take --kind ((none): no kind); --json rows carry kind and lastFailure", async () => {
      const dead = await verq(["jobs", "dead", "--db", db]);
      expect(dead.code).toBe(0);
      // All three died at one time: by id.
      expect(lines(dead.out)).toEqual([
        `mail-1 exhausted since ${at(1_100)} attempts=2 token=2 kind=email.send failure=FetchError`,
        `plain-1 cancelled since ${at(1_100)} attempts=1 token=1 kind=(none) failure=none`,
        `report-1 permanent since ${at(1_100)} attempts=1 token=1 kind=report.build failure=HttpError`,
      ]);
      expect(dead.out).not.toContain(SECRET);
      expect(lines((await verq(["jobs", "dead", "--db", db, "--kind", "report.build"])).out)).toHaveLength(1);
      expect((await verq(["jobs", "dead", "--db", db, "--kind", "(none)"])).out).toContain("plain-1 cancelled");
      expect((await verq(["jobs", "dead", "--db", db, "--kind", "nothing.here"])).out).toBe("no dead jobs\n");
      const rows = JSON.parse((await verq(["jobs", "dead", "--db", db, "--kind", "email.send", "--json"])).out) as Record<
        string,
        unknown
      >[];
      expect(rows).toEqual([
        expect.objectContaining({
          id: "mail-1",
          reason: "exhausted",
          kind: "email.send",
          lastFailure: expect.objectContaining({ errorClass: "FetchError", code: "ECONNRESET", attempt: 2 }) as unknown,
        }),
      ]);
      expect(JSON.stringify(rows)).not.toContain(SECRET);

      const pending = await verq(["jobs", "list", "--db", db, "--state", "pending", "--kind", "email.send"]);
      expect(lines(pending.out)).toEqual(["mail-2 pending token=1 attempts=1/3 queue=default kind=email.send failure=HttpError"]);
      const listed = JSON.parse((await verq(["jobs", "list", "--db", db, "--state", "dead", "--json"])).out) as {
        id: string;
        kind: string | null;
        lastFailure: { errorClass: string } | null;
      }[];
      expect(listed.map((j) => [j.id, j.kind, j.lastFailure?.errorClass ?? null])).toEqual([
        ["mail-1", "email.send", "FetchError"],
        ["plain-1", null, null],
        ["report-1", "report.build", "HttpError"],
      ]);
      expect(JSON.stringify(listed)).not.toContain(SECRET);
      expect((await verq(["jobs", "list", "--db", db, "--state", "leased", "--kind", "(none)"])).out).toBe(
        "no leased jobs of kind (none)\n",
      );
    });

    it("stats shows the dead by last failure class and per-kind figures, --kind narrows them, --json has kinds and groups", async () => {
      const text = lines((await verq(["jobs", "stats", "--db", db])).out);
      expect(text).toContain("dead by last failure class: (none)=1 FetchError=1 HttpError=1");
      expect(text.filter((line) => line.startsWith("kind "))).toEqual([
        "kind (none): pending=0 leased=0 done=0 dead=1 (dead by class: (none)=1)",
        "kind email.send: pending=1 leased=0 done=0 dead=1 (dead by class: FetchError=1)",
        "kind report.build: pending=0 leased=0 done=0 dead=1 (dead by class: HttpError=1)",
      ]);
      const narrowed = lines((await verq(["jobs", "stats", "--db", db, "--kind", "report.build"])).out);
      expect(narrowed.filter((line) => line.startsWith("kind "))).toEqual([
        "kind report.build: pending=0 leased=0 done=0 dead=1 (dead by class: HttpError=1)",
      ]);
      const json = JSON.parse((await verq(["jobs", "stats", "--db", db, "--kind", "(none)", "--json"])).out) as {
        kinds: Record<string, unknown>;
        groups: { queue: string; kind: string | null }[];
        dead: { byFailureClass: Record<string, number> };
      };
      expect(Object.keys(json.kinds)).toEqual(["(none)"]);
      expect(json.groups.map((g) => [g.queue, g.kind])).toEqual([["default", null]]);
      expect(json.dead.byFailureClass).toEqual({ "(none)": 1, FetchError: 1, HttpError: 1 });
    });

    it("a --kind that is no kind's name is a usage error (exit 2, VERQ_INVALID_ARGUMENT), and a missing --state too", async () => {
      for (const args of [
        ["jobs", "dead", "--db", db, "--kind", "1st"],
        ["jobs", "list", "--db", db, "--state", "dead", "--kind", "has space"],
        ["jobs", "stats", "--db", db, "--kind", ""],
        ["jobs", "list", "--db", db, "--state", "new"],
      ]) {
        const run = await verq(args);
        expect([args.join(" "), run.code, run.err]).toEqual([
          args.join(" "),
          2,
          expect.stringContaining("VERQ_INVALID_ARGUMENT"),
        ]);
      }
      expect((await verq(["jobs", "list", "--db", db])).code).toBe(2);
    });

    it("the bundled verq bin prints the same timeline as the CLI in this process", async () => {
      const child = await runVerq(["jobs", "show", "mail-1", "--db", db]);
      expect([child.status, child.stderr]).toEqual([0, ""]);
      expect(child.stdout).toBe((await verq(["jobs", "show", "mail-1", "--db", db])).out);
    });
  });
}
