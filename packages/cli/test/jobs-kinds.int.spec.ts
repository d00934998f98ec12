import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { JobQueue } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runInProcess } from "./support/cli-sandbox.ts";

// `verq jobs enqueue --kind` records a job's kind by name; `verq jobs work --kind` works only
// those kinds and leaves the others, kindless jobs included, pending. A receiver on 127.0.0.1
// answers every delivery with `{"ok":true}` and keeps the Idempotency-Key (the job id) of each.

let server: Server;
let target: string;
const delivered: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    delivered.push(String(req.headers["idempotency-key"]));
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`verq jobs and kinds [${engine}]`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
      db = database.db;
      delivered.length = 0;
    });
    afterEach(() => database.dispose());

    const enqueue = (id: string, ...extra: string[]) =>
      runInProcess(["jobs", "enqueue", "--db", db, "--id", id, "--payload", "{}", ...extra]);
    const states = async () => {
      const store = await database.open();
      try {
        const queue = new JobQueue(store);
        const jobs = await Promise.all(["plain", "mail", "img", "video"].map((id) => queue.get(id)));
        return jobs.map((job) => [job?.id, job?.kind, job?.state]);
      } finally {
        await store.close();
      }
    };

    it("enqueue --kind records the kind (a bad name is exit 2 and writes nothing); another kind for the id is a conflict", async () => {
      const created = await enqueue("mail", "--kind", "send-email", "--json");
      expect(created.code).toBe(0);
      expect(JSON.parse(created.out)).toMatchObject({ created: true, job: { id: "mail", kind: "send-email", state: "pending" } });
      const bad = await enqueue("other", "--kind", "send email");
      expect([bad.code, bad.err]).toEqual([2, expect.stringContaining("verq: VERQ_INVALID_ARGUMENT: a job kind is a letter")]);
      const conflict = await enqueue("mail", "--kind", "resize");
      expect([conflict.code, conflict.err]).toEqual([3, expect.stringContaining("VERQ_ENQUEUE_CONFLICT")]);
      expect((await enqueue("mail", "--kind", "send-email")).out).toContain("already enqueued");
      expect(await states()).toEqual([
        [undefined, undefined, undefined],
        ["mail", "send-email", "pending"],
        [undefined, undefined, undefined],
        [undefined, undefined, undefined],
      ]);
    });

    it("work --kind works only those kinds, as a list or with commas; without --kind, every job", async () => {
      expect((await enqueue("plain")).code).toBe(0);
      expect((await enqueue("mail", "--kind", "send-email")).code).toBe(0);
      expect((await enqueue("img", "--kind", "resize")).code).toBe(0);
      expect((await enqueue("video", "--kind", "transcode")).code).toBe(0);
      const work = (...extra: string[]) =>
        runInProcess(["jobs", "work", "--db", db, "--target", target, "--exit-when-idle", "--poll", "10ms", ...extra]);

      expect((await work("--kind", "send-email", "resize")).code).toBe(0);
      expect(delivered.sort()).toEqual(["img", "mail"]);
      expect(await states()).toEqual([
        ["plain", null, "pending"],
        ["mail", "send-email", "done"],
        ["img", "resize", "done"],
        ["video", "transcode", "pending"],
      ]);
      expect((await work("--kind", "nothing-here,transcode")).code).toBe(0);
      expect(delivered.sort()).toEqual(["img", "mail", "video"]);
      expect((await work()).code).toBe(0);
      expect(delivered.sort()).toEqual(["img", "mail", "plain", "video"]);
    });

    it("work --kind with a bad name is exit 2 before anything is claimed", async () => {
      expect((await enqueue("mail", "--kind", "send-email")).code).toBe(0);
      for (const kinds of [["send email"], ["send-email,"], [""]]) {
        const result = await runInProcess(["jobs", "work", "--db", db, "--target", target, "--once", "--kind", ...kinds]);
        expect([kinds, result.code, result.err]).toEqual([kinds, 2, expect.stringContaining("VERQ_INVALID_ARGUMENT")]);
      }
      expect(delivered).toEqual([]);
      expect((await states())[1]).toEqual(["mail", "send-email", "pending"]);
    });
  });
}
