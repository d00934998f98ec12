import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { GuidLedger, JobQueue } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, spawnVerq, tempDir } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { measureLag } from "../../src/index.ts";
import { leftBehind } from "../support/left-behind.ts";
import { expectedSamples, expectedTypes } from "./support/expected-figures.ts";
import { fillMetricsFixture } from "./support/metrics-fixture.ts";
import { parseExposition } from "./support/prometheus-text.ts";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Starts `verq metrics … --json` and resolves to the process and the URL it printed; rejects if it exits first. */
async function startMetrics(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnVerq(["metrics", ...args, "--json"], env);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`verq metrics did not start: ${seen}`)), 30_000);
    child.stdout?.on("data", (c: Buffer) => {
      seen += c.toString();
      const line = seen.split("\n").find((l) => l.includes('"listening"'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.stderr?.on("data", (c: Buffer) => (seen += c.toString()));
    child.once("exit", () => reject(new Error(`verq metrics exited: ${seen}`)));
  });
  return { child, url };
}

/** Sends SIGTERM and resolves to the exit code and signal. */
function stop(child: ChildProcess): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve([child.exitCode, child.signalCode]);
    child.once("exit", (code, signal) => resolve([code, signal]));
    child.kill("SIGTERM");
  });
}

describe("verq metrics", () => {
  it("without --db or --port it is a usage error (exit 2)", async () => {
    const [noDb, noPort] = await Promise.all([runVerq(["metrics", "--port", "0"]), runVerq(["metrics", "--db", "x.sqlite"])]);
    expect([noDb.status, noPort.status]).toEqual([2, 2]);
    expect(noDb.stderr).toContain("--db");
    expect(noPort.stderr).toContain("--port");
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq metrics --db`, () => {
    it("serves GET /metrics on 127.0.0.1 with every figure of stats() and the folders; SIGTERM stops it with exit 0", async () => {
      const database = await createTestDatabase(engine, "metrics.sqlite");
      cleanups.push(() => database.dispose());
      const dir = tempDir("verq-metrics-cli-");
      cleanups.push(() => dir.remove());
      const store = await database.open();
      cleanups.push(() => store.close());
      const fixture = await fillMetricsFixture(store, dir.path);

      const { child, url } = await startMetrics(["--db", database.db, "--port", "0", "--files", fixture.files], {
        VERQ_NOW_MS: String(fixture.clock.now()),
      });
      cleanups.push(async () => void (await stop(child)));
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(url).not.toMatch(/:0\//);

      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      const text = await response.text();
      const scraped = parseExposition(text);
      const jobs = await new JobQueue(store).stats();
      const ledger = await new GuidLedger(store).stats();
      expect(scraped.samples).toEqual(expectedSamples(jobs, ledger, measureLag(fixture.files), fixture.clock.now()));
      expect(scraped.types).toEqual(expectedTypes(true));
      expect(jobs.byState).toEqual({ pending: 3, leased: 1, done: 3, dead: 6 });
      expect(scraped.samples.get("verq_jobs_oldest_dead_age_seconds")).toBe(120);
      for (const id of [...fixture.jobIds, ...fixture.guids, ...fixture.payloadWords]) expect(text).not.toContain(id);

      expect(await stop(child)).toEqual([0, null]);
    });

    it("bad input exits 2 with VERQ_INVALID_ARGUMENT before the database is opened: nothing is created", async () => {
      const database = await createTestDatabase(engine, "metrics.sqlite");
      cleanups.push(() => database.dispose());
      const dir = tempDir("verq-metrics-cli-");
      cleanups.push(() => dir.remove());
      const runs = await Promise.all([
        ...["http", "-1", "65536"].map((port) => runVerq(["metrics", "--db", database.db, "--port", port])),
        runVerq(["metrics", "--db", database.db, "--port", "0", "--files", join(dir.path, "not-a-queue")]),
        runVerq(["metrics", "--db", database.db, "--port", "0"], { VERQ_NOW_MS: "yesterday" }),
      ]);
      for (const run of runs) {
        expect(run.status).toBe(2);
        expect(run.stderr).toContain("VERQ_INVALID_ARGUMENT");
      }
      expect(await leftBehind(database)).toEqual([]);
    });

    if (engine === "sqlite") {
      it("a SQLite file that does not exist exits 4 (VERQ_FILE_NOT_FOUND) and is not created", async () => {
        const database = await createTestDatabase(engine, "missing.sqlite");
        cleanups.push(() => database.dispose());
        const run = await runVerq(["metrics", "--db", database.db, "--port", "0"]);
        expect(run.status).toBe(4);
        expect(run.stderr).toContain("VERQ_FILE_NOT_FOUND");
        expect(await leftBehind(database)).toEqual([]);
      });
    }
  });
}
