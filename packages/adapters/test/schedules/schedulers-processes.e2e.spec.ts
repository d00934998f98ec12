import { JOB_STREAM, SCHEDULE_STREAM } from "@verq/core";
import { readAllEvents } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";

const T = Date.parse("2024-01-01T10:00:00.000Z");
const MINUTE = 60_000;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] three scheduler processes on one store`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.dispose();
      database = undefined;
    });

    it("enqueue each slot once, whichever process gets there first", { timeout: 120_000 }, async () => {
      database = await createTestDatabase(engine, "schedulers.sqlite");
      const db = database.db;
      const add = (name: string, cron: string) =>
        runVerq(["schedules", "add", name, "--db", db, "--cron", cron], { VERQ_NOW_MS: String(T) });
      expect((await add("every-minute", "* * * * *")).status).toBe(0);
      expect((await add("every-5", "*/5 * * * *")).status).toBe(0);
      // Rounds at fixed clocks: the three processes of a round run at once, on the same instant.
      const rounds = [T, T + MINUTE, T + 5 * MINUTE + 30_000, T + 5 * MINUTE + 59_999, T + 11 * MINUTE];
      const printed: string[] = [];
      for (const now of rounds) {
        const runs = await Promise.all(
          [1, 2, 3].map(() => runVerq(["schedules", "run", "--db", db, "--json"], { VERQ_NOW_MS: String(now) })),
        );
        for (const run of runs) {
          expect(run.stderr).toBe("");
          expect(run.status).toBe(0);
          printed.push(...run.stdout.split("\n").filter((line) => line !== ""));
        }
      }
      const store = await database.open();
      try {
        const jobIds = (await readAllEvents(store.db, JOB_STREAM))
          .filter((e) => e.type === "job.enqueued")
          .map((e) => e.streamId);
        const fired = (await readAllEvents(store.db, SCHEDULE_STREAM)).filter((e) => e.type === "schedule.fired");
        const iso = (ms: number) => new Date(ms).toISOString();
        // Each slot exactly once; only the latest missed slot after a gap.
        expect(jobIds.sort()).toEqual(
          [
            `schedule:every-5:${iso(T)}`,
            `schedule:every-5:${iso(T + 5 * MINUTE)}`,
            `schedule:every-5:${iso(T + 10 * MINUTE)}`,
            `schedule:every-minute:${iso(T)}`,
            `schedule:every-minute:${iso(T + MINUTE)}`,
            `schedule:every-minute:${iso(T + 5 * MINUTE)}`,
            `schedule:every-minute:${iso(T + 11 * MINUTE)}`,
          ].sort(),
        );
        expect(fired).toHaveLength(jobIds.length);
        // What the processes printed: each slot reported by exactly one of them.
        const reported = printed.map((line) => (JSON.parse(line) as { jobId: string }).jobId);
        expect(reported.sort()).toEqual([...jobIds].sort());
      } finally {
        await store.close();
      }
    });
  });
}
