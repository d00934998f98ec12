import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { createTestDatabase, rawSql, runVerq, spawnVerq, tempDir, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runInProcess } from "./support/cli-sandbox.ts";

/*
 * The details a user meets first: `--version`, `events --from end`, `jobs stats --queue` of a
 * queue the store never had, a port that is taken, and the wording of `check`'s summary.
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A SQLite store of the test's own, made by a command that writes. */
async function sqliteStore(): Promise<TestDatabase> {
  const database = await createTestDatabase("sqlite");
  cleanups.push(() => database.dispose());
  return database;
}

async function enqueue(db: string, id: string, ...more: string[]): Promise<void> {
  const result = await runInProcess(["jobs", "enqueue", "--db", db, "--id", id, "--payload", "{}", ...more]);
  if (result.code !== 0) throw new Error(result.err);
}

describe("verq --version", () => {
  it("prints the version of @verq/cli from its package.json and exits 0 (also -V)", async () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as { version: string };
    expect(await runInProcess(["--version"])).toEqual({ code: 0, out: `${manifest.version}\n`, err: "" });
    expect(await runInProcess(["-V"])).toEqual({ code: 0, out: `${manifest.version}\n`, err: "" });
    // The bin as a process, bundled as the package ships it.
    const run = await runVerq(["--version"]);
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 0, stdout: `${manifest.version}\n` });
  });
});

interface EventLine {
  readonly position: number;
  readonly streamId: string;
}

describe("verq events --from end", () => {
  it("without --follow: nothing is printed, whatever the log holds; a --from that is neither a position nor end is exit 2", async () => {
    const { db } = await sqliteStore();
    await enqueue(db, "a");
    await enqueue(db, "b");
    expect(await runInProcess(["events", "--db", db, "--from", "end"])).toEqual({ code: 0, out: "", err: "" });
    const bad = await runInProcess(["events", "--db", db, "--from", "start"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^verq: VERQ_INVALID_ARGUMENT: --from must be a position \(a whole number\) or end; got "start"\n/);
  });

  it("with --follow: starts after the last event there is now, and prints only the events committed after it", async () => {
    const { db } = await sqliteStore();
    await enqueue(db, "old-1");
    await enqueue(db, "old-2");
    const child = spawnVerq(["events", "--db", db, "--follow", "--from", "end", "--poll", "20ms"]);
    cleanups.push(() => killed(child));
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = () =>
      stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as EventLine);
    // Whenever the follower starts reading, some job enqueued after that is printed.
    for (let n = 1; lines().length === 0; n++) {
      if (child.exitCode !== null || n > 500) throw new Error(`nothing printed (exit ${child.exitCode}); stderr: ${stderr}`);
      await enqueue(db, `new-${n}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exit = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    const printed = lines();
    expect(printed.every((l) => l.position > 2 && l.streamId.startsWith("new-"))).toBe(true);
  });
});

/** Kills `child` if it still runs and waits for it to end. */
function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("verq jobs stats --queue", () => {
  it("a queue the store never had: exit 4, VERQ_UNKNOWN_QUEUE on stderr naming the queues there are; nothing on stdout", async () => {
    const { db } = await sqliteStore();
    await enqueue(db, "a");
    await enqueue(db, "b", "--queue", "emails");
    const result = await runInProcess(["jobs", "stats", "--db", db, "--queue", "emial"]);
    expect(result).toEqual({
      code: 4,
      out: "",
      err: 'verq: VERQ_UNKNOWN_QUEUE: no queue "emial" in this store (no job in it, no limit set); its queues are "default", "emails". Check --queue.\n',
    });
    const json = await runInProcess(["jobs", "stats", "--db", db, "--queue", "emial", "--json"]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.out)).toEqual({
      error: { code: "VERQ_UNKNOWN_QUEUE", message: expect.stringContaining('"emial"') as string },
    });
  });

  it("a queue with a job, one with only a limit, and default on a store without jobs are known: exit 0 with their figures", async () => {
    const { db } = await sqliteStore();
    await runInProcess(["init", "--db", db]);
    const empty = await runInProcess(["jobs", "stats", "--db", db, "--queue", "default"]);
    expect([empty.code, empty.err]).toEqual([0, ""]);
    expect(empty.out).toContain("queue default: pending=0 leased=0/unlimited done=0 dead=0");
    await enqueue(db, "a", "--queue", "emails");
    expect((await runInProcess(["queues", "limit", "reports", "--db", db, "--max-leased", "2"])).code).toBe(0);
    const emails = await runInProcess(["jobs", "stats", "--db", db, "--queue", "emails"]);
    expect([emails.code, emails.err]).toEqual([0, ""]);
    expect(emails.out).toContain("queue emails: pending=1 leased=0/unlimited done=0 dead=0");
    const reports = await runInProcess(["jobs", "stats", "--db", db, "--queue", "reports", "--json"]);
    expect(reports.code).toBe(0);
    expect((JSON.parse(reports.out) as { queues: unknown }).queues).toEqual({
      reports: { byState: { pending: 0, leased: 0, done: 0, dead: 0 }, leased: 0, maxLeased: 2 },
    });
  });
});

/** A TCP server that holds a port of 127.0.0.1 until the test ends. */
async function takenPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a port in use", () => {
  it("dashboard, metrics, receiver serve and relay serve: exit 1, VERQ_PORT_IN_USE naming host:port, not VERQ_UNEXPECTED", async () => {
    const { db } = await sqliteStore();
    await runInProcess(["init", "--db", db]);
    const port = await takenPort();
    const commands = [
      ["dashboard", "--db", db, "--port", String(port), "--log-level", "silent"],
      ["metrics", "--db", db, "--port", String(port), "--log-level", "silent"],
      ["receiver", "serve", "--db", db, "--port", String(port), "--log-level", "silent"],
      ["relay", "serve", "--db", db, "--port", String(port), "--core", "http://127.0.0.1:9/", "--log-level", "silent"],
    ];
    for (const args of commands) {
      const result = await runInProcess(args);
      expect({ command: args[0], code: result.code, out: result.out }).toEqual({ command: args[0], code: 1, out: "" });
      expect(result.err, args[0]).toBe(
        `verq: VERQ_PORT_IN_USE: cannot listen on 127.0.0.1:${port}: another process is using that port. Stop it, or give another --port (0 picks a free one)\n`,
      );
    }
    const json = await runInProcess(["metrics", "--db", db, "--port", String(port), "--log-level", "silent", "--json"]);
    expect(JSON.parse(json.out)).toEqual({
      error: { code: "VERQ_PORT_IN_USE", message: expect.stringContaining(`127.0.0.1:${port}`) as string },
    });
  });
});

describe("verq check's summary", () => {
  it("says 1 problem, 1 stream, 1 event (singular), and problems, streams, events for more", async () => {
    const database = await sqliteStore();
    const dir = tempDir("verq-check-words-");
    cleanups.push(dir.remove);
    await enqueue(database.db, "a");
    expect(await runInProcess(["check", "--db", database.db])).toEqual({
      code: 0,
      out: "ok: 1 stream, 1 event checked\n",
      err: "",
    });
    await rawSql(database, "update jobs set token = 7 where id = 'a'");
    const one = await runInProcess(["check", "--db", database.db]);
    expect([one.code, one.err]).toEqual([1, "verq: check found 1 problem in 1 stream, 1 event\n"]);
    await enqueue(database.db, "b");
    await rawSql(database, "update jobs set token = 7 where id = 'b'");
    const two = await runInProcess(["check", "--db", database.db]);
    expect([two.code, two.err]).toEqual([1, "verq: check found 2 problems in 2 streams, 2 events\n"]);
  });
});
