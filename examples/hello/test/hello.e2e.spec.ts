// The README's two hellos, run as a user runs them: a child process on a real SQLite file and on
// the local PostgreSQL, each twice, and the store read afterwards.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { JobQueue } from "@verq/store";
import { createTestDatabase, engineAvailable, ENGINES, type Engine } from "@verq/testing";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SCRIPTS: Record<Engine, string> = {
  sqlite: path.join(import.meta.dirname, "../src/sqlite.ts"),
  postgres: path.join(import.meta.dirname, "../src/postgres.ts"),
};

/** Runs one hello to its end, as `node --import tsx` from the repository root; stdout's lines. */
function runHello(engine: Engine, db: string, id: string, email: string): string[] {
  const result = spawnSync(process.execPath, ["--import", "tsx", SCRIPTS[engine], db, id, email], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return result.stdout.trim().split("\n");
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] hello`, () => {
    it("J2, J4: the sign-up and its job are written, the mail goes once with token 1, a rerun enqueues nothing", async () => {
      const database = await createTestDatabase(engine, "hello.sqlite");
      try {
        expect(runHello(engine, database.db, "user-7", "ada@example.com")).toEqual([
          "welcome mail to ada@example.com: job welcome-user-7, token 1",
          "sent 1",
        ]);
        // The same sign-up again: the row is kept, the enqueue of the same id and payload is a no-op.
        expect(runHello(engine, database.db, "user-7", "ada@example.com")).toEqual(["sent 0"]);

        const store = await database.open();
        try {
          const rows = await store.db
            .withTables<{ signups: { id: string; email: string } }>()
            .selectFrom("signups")
            .selectAll()
            .execute();
          expect(rows).toEqual([{ id: "user-7", email: "ada@example.com" }]);
          const queue = new JobQueue(store);
          const job = await queue.get("welcome-user-7");
          expect(job).toMatchObject({
            state: "done",
            token: 1,
            attempts: 1,
            kind: "welcome-mail",
            payload: { email: "ada@example.com" },
          });
          expect((await queue.history("welcome-user-7")).map((event) => event.type)).toEqual([
            "job.enqueued",
            "job.claimed",
            "job.completed",
          ]);
        } finally {
          await store.close();
        }
      } finally {
        await database.dispose();
      }
    });
  });
}
