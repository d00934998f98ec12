import type { ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ENGINES, TestCore, createTestDatabase, engineAvailable, runVerq, spawnVerq, tempDir } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { initQueue } from "@verq/adapters/files";
import { leftBehind } from "../../adapters/test/support/left-behind.ts";

/*
 * The commands that serve or work log JSON lines on stderr through pino: ids, tokens, states and
 * durations, never a payload, a body or an answer; `--log-level` picks the least severe level
 * written, and a bad level is a usage error. Every command runs as a real child process against
 * a real receiver, relay core or queue folder; stderr is parsed line by line.
 */

/** Stands in every payload, body and message: it must never appear in a log line. */
const SECRET = "ZEBRA-SECRET-7f3a";
/**
 * The fixed clock of the workers (`VERQ_NOW_MS`): after every enqueue of the run (the file's
 * tests may run for minutes on a loaded machine), well before any deadline (a day by default).
 */
const T0 = Date.now() + 3_600_000;

type Line = Record<string, unknown>;

/** Every stderr line must be one JSON object (no human error was expected); returns them. */
function logLines(stderr: string): Line[] {
  return stderr
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const parsed = JSON.parse(line) as unknown;
      expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), line).toBe(true);
      return parsed as Line;
    });
}

const withMsg = (lines: readonly Line[], msg: string): Line[] => lines.filter((line) => line.msg === msg);

/** What every line has: a level label, a time in ms, the process's pid and the logger's name. */
function expectEnvelope(lines: readonly Line[], name: string): void {
  for (const line of lines) {
    expect([typeof line.level, typeof line.time, typeof line.pid, line.name]).toEqual(["string", "number", "number", name]);
  }
}

/** A `verq … serve` child process: its stdout and stderr so far, and a stop that waits for its exit. */
interface Serving {
  readonly url: string;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Spawns `verq args` and resolves once its stdout says `listening on URL` (`dashboard on URL`). */
async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const child: ChildProcess = spawnVerq(args, env);
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${out}${err}`)), 30_000);
    child.stdout?.on("data", () => {
      const match = /(?:listening on|dashboard on) (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`exited before listening: ${out}${err}`)));
  });
  return {
    url,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A target that answers every delivery 200 `{}`: not `{"ok":true}`, so a BadAck. */
async function badAckTarget(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The usage line a usage error of the command that `args` begins with ends with. */
const usage = (args: readonly string[]): string => {
  const path = [
    "verq",
    ...args.slice(0, args[0] === "jobs" || args[0] === "relay" || args[0] === "receiver" || args[0] === "files" ? 2 : 1),
  ].join(" ");
  return `usage: ${path} [options]${args[0] === "files" ? " <root>" : ""} (${path} --help for more)`;
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("--log-level", () => {
  it("a level that is not fatal, error, warn, info, debug, trace or silent is a usage error (exit 2) on every command that logs, before anything is opened", async () => {
    const dir = tempDir("verq-log-level-");
    cleanups.push(dir.remove);
    const db = join(dir.path, "nothing.sqlite");
    const root = join(dir.path, "q");
    initQueue(root);
    const commands = [
      ["jobs", "work", "--db", db, "--target", "http://127.0.0.1:8/", "--once"],
      ["relay", "serve", "--db", db, "--core", "http://127.0.0.1:9", "--port", "0"],
      ["receiver", "serve", "--db", db, "--port", "0"],
      ["files", "consume", root, "--db", db],
      ["metrics", "--db", db, "--port", "0"],
      ["dashboard", "--db", db, "--port", "0"],
    ];
    const runs = await Promise.all(commands.map((args) => runVerq([...args, "--log-level", "nope"])));
    for (const [i, run] of runs.entries()) {
      expect([commands[i]?.slice(0, 2).join(" "), run.status, run.stdout]).toEqual([commands[i]?.slice(0, 2).join(" "), 2, ""]);
      expect(run.stderr).toBe(
        `verq: VERQ_INVALID_ARGUMENT: --log-level must be fatal, error, warn, info, debug, trace, silent; got "nope"\n${usage(commands[i] ?? [])}\n`,
      );
    }
    expect(existsSync(db)).toBe(false);
    const json = await runVerq([...(commands[0] ?? []), "--log-level", "loud", "--json"]);
    expect([json.status, json.stderr, JSON.parse(json.stdout)]).toEqual([
      2,
      `${usage(commands[0] ?? [])}\n`,
      { error: { code: "VERQ_INVALID_ARGUMENT", message: expect.stringContaining("--log-level") as unknown } },
    ]);
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] structured logs`, () => {
    it("jobs work against a real receiver: claims at debug, outcomes at info with id, token, outcome, durationMs; a BadAck at error; a lease taken over at warn; the receiver logs key, replayed and each request; never the payload", async () => {
      const queue = await createTestDatabase(engine, "queue.sqlite");
      cleanups.push(() => queue.dispose());
      const receiverDb = await createTestDatabase(engine, "receiver.sqlite");
      cleanups.push(() => receiverDb.dispose());
      const receiver = await serve(["receiver", "serve", "--db", receiverDb.db, "--port", "0"]);
      cleanups.push(async () => void (await receiver.stop()));
      const bad = await badAckTarget();
      cleanups.push(bad.close);
      const payload = JSON.stringify({ quantity: 2, note: SECRET });
      for (const id of ["log-1", "log-2"]) {
        expect((await runVerq(["jobs", "enqueue", "--db", queue.db, "--id", id, "--payload", payload])).status).toBe(0);
      }

      // w1 claims log-1 with token 1 at T0 and gets a BadAck: the job stays leased for 30 s.
      const first = await runVerq(
        ["jobs", "work", "--db", queue.db, "--target", bad.url, "--once", "--owner", "w1", "--log-level", "debug", "--json"],
        { VERQ_NOW_MS: String(T0) },
      );
      expect(first.status).toBe(1);
      // The error as it happened, then its record: the failure is kept on the job (J5), which stays leased.
      expect(
        first.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as unknown),
      ).toEqual([
        expect.objectContaining({ error: expect.objectContaining({ code: "VERQ_BAD_ACK" }) as unknown }),
        expect.objectContaining({ status: "finished", id: "log-1", token: 1, outcome: "failed", accepted: true }),
      ]);
      const firstLines = logLines(first.stderr);
      expectEnvelope(firstLines, "verq-worker");
      expect(withMsg(firstLines, "claimed")).toEqual([
        expect.objectContaining({ level: "debug", id: "log-1", token: 1, owner: "w1", leaseUntil: T0 + 30_000, attempt: 1 }),
      ]);
      expect(
        withMsg(firstLines, "handler failed; the failure is recorded and the job stays leased until its lease expires (J5)"),
      ).toEqual([
        expect.objectContaining({
          level: "error",
          id: "log-1",
          token: 1,
          owner: "w1",
          failure: "bad-ack",
          errorCode: "VERQ_BAD_ACK",
          handlerMs: expect.any(Number) as unknown,
        }),
      ]);

      // w2 at the lease's end takes log-1 over with token 2, and delivers both to the receiver.
      const second = await runVerq(
        [
          "jobs",
          "work",
          "--db",
          queue.db,
          "--target",
          `${receiver.url}/`,
          "--exit-when-idle",
          "--owner",
          "w2",
          "--log-level",
          "debug",
        ],
        { VERQ_NOW_MS: String(T0 + 30_000) },
      );
      expect(second.status).toBe(0);
      expect(second.stdout.trim().split("\n").sort()).toEqual([
        "log-1 token=2 outcome=ok accepted=true",
        "log-2 token=1 outcome=ok accepted=true",
      ]);
      const lines = logLines(second.stderr);
      expectEnvelope(lines, "verq-worker");
      expect(withMsg(lines, "lease expired; taken over by a new claim")).toEqual([
        expect.objectContaining({ level: "warn", id: "log-1", token: 1, owner: "w1", state: "leased", by: "w2" }),
      ]);
      expect(
        withMsg(lines, "claimed")
          .map((l) => [l.id, l.token, l.owner, l.leaseUntil, l.attempt])
          .sort(),
      ).toEqual([
        ["log-1", 2, "w2", T0 + 60_000, 2],
        ["log-2", 1, "w2", T0 + 60_000, 1],
      ]);
      const outcomes = withMsg(lines, "outcome recorded");
      expect(outcomes.map((l) => [l.level, l.id, l.token, l.outcome, l.accepted, l.owner]).sort()).toEqual([
        ["info", "log-1", 2, "ok", true, "w2"],
        ["info", "log-2", 1, "ok", true, "w2"],
      ]);
      for (const outcome of outcomes) {
        expect(outcome.durationMs).toEqual(expect.any(Number));
        expect(outcome.sendMs).toEqual(expect.any(Number));
        expect(outcome.durationMs as number).toBeGreaterThanOrEqual(outcome.sendMs as number);
      }

      // A repeat of log-2's key, by hand: answered from its receipt.
      const repeat = await fetch(`${receiver.url}/?token=${SECRET}`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "log-2" },
        body: payload,
      });
      expect(repeat.status).toBe(200);
      expect(await receiver.stop()).toBe(0);
      const received = logLines(receiver.stderr());
      expectEnvelope(received, "verq-receiver");
      expect(
        withMsg(received, "receipt answered")
          .map((l) => [l.level, l.key, l.replayed, l.status, typeof l.durationMs])
          .sort(),
      ).toEqual([
        ["info", "log-1", false, 200, "number"],
        ["info", "log-2", false, 200, "number"],
        ["info", "log-2", true, 200, "number"],
      ]);
      const requests = withMsg(received, "request");
      expect(requests.map((l) => [l.method, l.path, l.status])).toEqual([
        ["POST", "/", 200],
        ["POST", "/", 200],
        ["POST", "/", 200],
      ]);
      expect(requests.every((l) => typeof l.reqId === "string" && typeof l.durationMs === "number")).toBe(true);

      for (const text of [first.stderr, second.stderr, receiver.stderr()]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain("quantity");
      }
    });

    it("--log-level warn drops the info and debug lines and keeps the warnings; silent writes nothing", async () => {
      const queue = await createTestDatabase(engine, "queue.sqlite");
      cleanups.push(() => queue.dispose());
      const bad = await badAckTarget();
      cleanups.push(bad.close);
      const receiver = await serve(["receiver", "serve", "--db", queue.db, "--port", "0", "--log-level", "silent"]);
      cleanups.push(async () => void (await receiver.stop()));
      for (const id of ["w-1", "w-2"]) {
        expect((await runVerq(["jobs", "enqueue", "--db", queue.db, "--id", id, "--payload", '{"quantity":1}'])).status).toBe(0);
      }
      const claim = await runVerq(["jobs", "work", "--db", queue.db, "--target", bad.url, "--once", "--owner", "w1"], {
        VERQ_NOW_MS: String(T0),
      });
      expect(claim.status).toBe(1);
      const run = await runVerq(
        [
          "jobs",
          "work",
          "--db",
          queue.db,
          "--target",
          `${receiver.url}/`,
          "--exit-when-idle",
          "--owner",
          "w2",
          "--log-level",
          "warn",
        ],
        { VERQ_NOW_MS: String(T0 + 30_000) },
      );
      expect(run.status).toBe(0);
      expect(run.stdout.trim().split("\n")).toHaveLength(2);
      const lines = logLines(run.stderr);
      expect(lines.map((l) => [l.level, l.msg, l.id])).toEqual([["warn", "lease expired; taken over by a new claim", "w-1"]]);
      // The same work at the default level, info, writes the outcome lines that warn dropped.
      expect((await runVerq(["jobs", "enqueue", "--db", queue.db, "--id", "w-3", "--payload", "{}"])).status).toBe(0);
      const info = await runVerq(["jobs", "work", "--db", queue.db, "--target", `${receiver.url}/`, "--exit-when-idle"]);
      expect(info.status).toBe(0);
      expect(logLines(info.stderr).map((l) => [l.level, l.msg, l.id])).toEqual([["info", "outcome recorded", "w-3"]]);
      expect(await receiver.stop()).toBe(0);
      expect(receiver.stderr()).toBe("");
    });

    it("relay serve: one info line per transfer with guid, kind, from, to, attempt and durationMs, a debug line per core call, one line per request without its query string; never the body or the answer", async () => {
      const ledger = await createTestDatabase(engine, "ledger.sqlite");
      cleanups.push(() => ledger.dispose());
      const core = await TestCore.start();
      cleanups.push(() => core.close());
      const relay = await serve(["relay", "serve", "--db", ledger.db, "--core", core.url, "--port", "0", "--log-level", "debug"]);
      cleanups.push(async () => void (await relay.stop()));
      const send = (body: string) =>
        fetch(`${relay.url}/transfer?note=${SECRET}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      const body = JSON.stringify({ guid: "g-1", amount: 5, memo: SECRET });
      expect((await send(body)).status).toBe(200);
      expect((await send(body)).status).toBe(200);
      expect((await send(`{"amount":5,"memo":"${SECRET}"}`)).status).toBe(400);
      expect(await relay.stop()).toBe(0);
      const lines = logLines(relay.stderr());
      expectEnvelope(lines, "verq-relay");
      expect(
        withMsg(lines, "transfer answered").map(({ level, guid, kind, from, to, attempt, status, replayed }) => ({
          level,
          guid,
          kind,
          from,
          to,
          attempt,
          status,
          replayed,
        })),
      ).toEqual([
        { level: "info", guid: "g-1", kind: "claimed", from: null, to: "DONE", attempt: 1, status: 200, replayed: false },
        { level: "info", guid: "g-1", kind: "repeat", from: "DONE", to: "DONE", attempt: 1, status: 200, replayed: true },
      ]);
      expect(withMsg(lines, "transfer answered").every((l) => typeof l.durationMs === "number")).toBe(true);
      expect(withMsg(lines, "core called")).toEqual([
        expect.objectContaining({
          level: "debug",
          guid: "g-1",
          attempt: 1,
          from: "SENT",
          to: "DONE",
          accepted: true,
          coreMs: expect.any(Number) as unknown,
        }),
      ]);
      expect(withMsg(lines, "transfer refused")).toEqual([
        expect.objectContaining({ level: "info", status: 400, problem: "missing-guid" }),
      ]);
      expect(withMsg(lines, "request").map((l) => [l.method, l.path, l.status])).toEqual([
        ["POST", "/transfer", 200],
        ["POST", "/transfer", 200],
        ["POST", "/transfer", 400],
      ]);
      expect(relay.stderr()).not.toContain(SECRET);
      expect(relay.stderr()).not.toContain("amount");
    });

    it("files consume: one info line per file with file, state, outcome, reason and durationMs; never the message's contents", async () => {
      const database = await createTestDatabase(engine, "files.sqlite");
      cleanups.push(() => database.dispose());
      const dir = tempDir("verq-logs-files-");
      cleanups.push(dir.remove);
      const dirs = initQueue(join(dir.path, "q"));
      const message = (id: string) => JSON.stringify({ msg_id: id, order_no: SECRET, seq: 1, amount: 5 });
      writeFileSync(join(dirs.inbox, "first.json"), message("m-0"));
      const quiet = await runVerq(["files", "consume", dirs.root, "--db", database.db]);
      // Its default level is warn: a run prints its totals and logs nothing when all went well.
      expect([quiet.status, quiet.stdout, quiet.stderr]).toEqual([0, "done=1 error=0 duplicates=0 recovered=0\n", ""]);
      writeFileSync(join(dirs.inbox, "a.json"), message("m-1"));
      writeFileSync(join(dirs.inbox, "b.json"), message("m-1"));
      writeFileSync(join(dirs.inbox, "c.json"), `{"msg_id": "${SECRET}"`);
      const run = await runVerq(["files", "consume", dirs.root, "--db", database.db, "--log-level", "info"]);
      expect([run.status, run.stdout]).toEqual([0, "done=2 error=1 duplicates=1 recovered=0\n"]);
      const lines = logLines(run.stderr);
      expectEnvelope(lines, "verq-files");
      expect(withMsg(lines, "file settled").map((l) => [l.level, l.file, l.state, l.outcome, l.reason, l.recovered])).toEqual([
        ["info", "a.json", "done", "recorded", null, false],
        ["info", "b.json", "done", "duplicate", null, false],
        ["info", "c.json", "error", null, "parse", false],
      ]);
      expect(lines.every((l) => typeof l.durationMs === "number")).toBe(true);
      expect(run.stderr).not.toContain(SECRET);
    });

    it("metrics and dashboard: one line per request with method, path without its query string, status and durationMs; never a payload", async () => {
      const database = await createTestDatabase(engine, "servers.sqlite");
      cleanups.push(() => database.dispose());
      const payload = JSON.stringify({ memo: SECRET });
      expect((await runVerq(["jobs", "enqueue", "--db", database.db, "--id", "job-1", "--payload", payload])).status).toBe(0);
      const metrics = await serve(["metrics", "--db", database.db, "--port", "0", "--log-level", "info"]);
      const dashboard = await serve(["dashboard", "--db", database.db, "--port", "0", "--log-level", "info"]);
      const origin = (url: string) => new URL(url).origin;
      expect((await fetch(`${origin(metrics.url)}/metrics?token=${SECRET}`)).status).toBe(200);
      expect((await fetch(`${origin(dashboard.url)}/jobs/job-1?payload=1`)).status).toBe(200);
      expect(await metrics.stop()).toBe(0);
      expect(await dashboard.stop()).toBe(0);
      for (const [server, name, path] of [
        [metrics, "verq-metrics", "/metrics"],
        [dashboard, "verq-dashboard", "/jobs/job-1"],
      ] as const) {
        const lines = logLines(server.stderr());
        expectEnvelope(lines, name);
        expect(withMsg(lines, "request").map((l) => [l.level, l.method, l.path, l.status, typeof l.durationMs])).toEqual([
          ["info", "GET", path, 200, "number"],
        ]);
        expect(server.stderr()).not.toContain(SECRET);
      }
    });

    it("a bad --log-level on a database that does not exist yet creates nothing", async () => {
      const database = await createTestDatabase(engine, "nothing.sqlite");
      cleanups.push(() => database.dispose());
      const run = await runVerq([
        "jobs",
        "work",
        "--db",
        database.db,
        "--target",
        "http://127.0.0.1:8/",
        "--log-level",
        "verbose",
      ]);
      expect(run.status).toBe(2);
      expect(await leftBehind(database)).toEqual([]);
    });
  });
}
