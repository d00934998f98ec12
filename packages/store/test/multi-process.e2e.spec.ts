import { JOB_STREAM } from "@verq/core";
import { JobQueue, openStore } from "@verq/store";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

/** What `claim-worker.ts` writes per claim and per finish. */
type WorkerLine =
  | { kind: "claim"; id: string; token: number; owner: string }
  | { kind: "finish"; id: string; token: number; outcome: "ok" | "retry" | "permanent"; accepted: boolean };

const JOBS = 300;
const LEASE_MS = 4;
const IDLE_MS = 400;
const OWNERS = ["worker-a", "worker-b"] as const;

let tmp: TempDir | undefined;
afterEach(() => tmp?.remove());

describe("J3 claim across processes: two OS processes, one SQLite file", () => {
  it.each(["wal", "delete"] as const)(
    "journal %s: never hands out one (job, token) twice, tokens per job are 1..max without gaps, both processes work, no SQLITE_BUSY escapes",
    async (journalMode) => {
    tmp = makeTempDir("multi-process");
    const dbPath = tmp.file("queue.sqlite");
    const setup = await openStore({ path: dbPath, journalMode });
    const queue = new JobQueue(setup);
    for (let i = 0; i < JOBS; i++) {
      await queue.enqueue({ id: `job-${String(i).padStart(3, "0")}`, payload: { quantity: i } });
    }
    await setup.close();

    const children = OWNERS.map((owner, i) =>
      runTsChild(helperScript("claim-worker.ts"), [
        dbPath,
        owner,
        tmp!.file(`${owner}.jsonl`),
        String(1_000 + i),
        String(LEASE_MS),
        String(IDLE_MS),
        journalMode,
      ]),
    );
    // Start both loops together, so neither drains the queue while the other is still loading.
    await Promise.all(children.map((c) => c.waitForLine((l) => l === "ready")));
    for (const c of children) c.process.stdin.end("go\n");
    const codes = await Promise.all(children.map((c) => c.exited(25_000)));
    const diagnostics = children.map((c, i) => `${OWNERS[i]}: ${c.stdout().trim()} ${c.stderr().trim()}`).join("\n");
    expect(codes, diagnostics).toEqual([0, 0]);

    const lines = OWNERS.flatMap((owner) => readJsonLines<WorkerLine>(tmp!.file(`${owner}.jsonl`)));
    const claims = lines.filter((l) => l.kind === "claim");
    const finishes = lines.filter((l) => l.kind === "finish");

    // No (job, token) pair was handed out twice, across both processes.
    const pairs = claims.map((c) => `${c.id}#${c.token}`);
    expect(new Set(pairs).size).toBe(pairs.length);

    // Per job, the tokens handed out are exactly 1..max: each claim added exactly 1.
    const tokensByJob = new Map<string, number[]>();
    for (const c of claims) tokensByJob.set(c.id, [...(tokensByJob.get(c.id) ?? []), c.token]);
    expect(tokensByJob.size).toBe(JOBS);
    for (const [id, tokens] of tokensByJob) {
      const sorted = [...tokens].sort((a, b) => a - b);
      expect(sorted, id).toEqual(sorted.map((_, i) => i + 1));
    }

    // Both processes got work, expired leases were reclaimed, and jobs moved between processes.
    for (const owner of OWNERS) expect(claims.filter((c) => c.owner === owner).length, owner).toBeGreaterThan(0);
    expect(Math.max(...claims.map((c) => c.token))).toBeGreaterThan(1);
    const sharedJobs = [...tokensByJob.keys()].filter(
      (id) => new Set(claims.filter((c) => c.id === id).map((c) => c.owner)).size === 2,
    );
    expect(sharedJobs.length).toBeGreaterThan(0);

    const store = await openStore({ path: dbPath, journalMode });
    try {
      const check = new JobQueue(store);
      // Every claim the log records was handed to exactly one process, and vice versa.
      const logged = await sql<{ stream_id: string; data: string }>`select stream_id, data from events
          where stream_type = ${JOB_STREAM} and type = 'job.claimed' order by position`.execute(store.db);
      const loggedPairs = logged.rows.map((r) => {
        const data = JSON.parse(r.data) as { token: number; owner: string };
        return `${r.stream_id}#${data.token}@${data.owner}`;
      });
      expect(loggedPairs.sort()).toEqual(claims.map((c) => `${c.id}#${c.token}@${c.owner}`).sort());

      // The run ended quiet: every job is done or dead, with the last token handed out.
      for (const [id, tokens] of tokensByJob) {
        const job = await check.get(id);
        expect(job?.state === "done" || job?.state === "dead", `${id} is ${job?.state}`).toBe(true);
        expect(job?.token, id).toBe(Math.max(...tokens));
        const oks = finishes.filter((f) => f.id === id && f.outcome === "ok" && f.accepted);
        // Fencing: a done job has exactly one accepted ok, made with its final token.
        if (job?.state === "done") expect(oks.map((f) => f.token), id).toEqual([job.token]);
        else expect(oks, id).toEqual([]);
      }
      const stats = await check.stats();
      expect(stats.leaseExpiries).toBeGreaterThan(0);
      expect(stats.staleFinishesRefused).toBe(finishes.filter((f) => !f.accepted).length);
    } finally {
      await store.close();
    }
  },
    40_000,
  );
});
