import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TEST_POSTGRES_URL, engineAvailable, runVerq, tempDir } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../src/main.ts";
import { initQueue } from "@verq/adapters/files";

/*
 * S1: every `--db` takes a PostgreSQL URL, so every command must fail the same plain way when
 * that URL cannot be used: exit 1, one line `verq: VERQ_STORE_UNREACHABLE: …` on stderr (with
 * `--json`, `{"error":{"code","message"}}` on stdout) that names the server and never the
 * password the URL carries, and nothing changed. One command of each area stands for the rest:
 * they all open their store through the same `withStore`.
 */

const PASSWORD = "s3cret";

/** A port nothing listens on: the connection is refused at once. */
const REFUSED = `postgres://verq:${PASSWORD}@127.0.0.1:1/verq`;
/** Port 99999 cannot be parsed: the URL is malformed. */
const MALFORMED = `postgres://verq:${PASSWORD}@127.0.0.1:99999/verq`;
/** The test server, a database it does not have, and the other scheme. */
const UNKNOWN_DATABASE = (() => {
  const url = new URL(TEST_POSTGRES_URL);
  url.protocol = "postgresql:";
  url.password = PASSWORD;
  url.pathname = "/verq_no_such_database";
  return url.toString();
})();

interface Case {
  readonly url: string;
  /** What the message must contain: the server (host:port/database), or for a URL that cannot be parsed, what one looks like. */
  readonly names: readonly string[];
}
const refused: Case = { url: REFUSED, names: ["127.0.0.1:1/verq", "refused"] };
const malformed: Case = { url: MALFORMED, names: ["not a PostgreSQL URL", "postgres://user@host:5432/database"] };
const unknownDatabase: Case = {
  url: UNKNOWN_DATABASE,
  names: [`${new URL(TEST_POSTGRES_URL).host}/verq_no_such_database`, "does not exist"],
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A file queue with one valid message in its inbox: a consume that fails must leave it there. */
function queueWithOneMessage(): { root: string; inbox: () => string[] } {
  const dir = tempDir("verq-unreachable-");
  cleanups.push(dir.remove);
  const dirs = initQueue(join(dir.path, "q"));
  writeFileSync(join(dirs.inbox, "m1.json"), JSON.stringify({ msg_id: "M1", order_no: "O-1", seq: 1, amount: 5 }));
  return { root: dirs.root, inbox: () => readdirSync(dirs.inbox) };
}

/** One command of each area on `db`; `json` says whether it takes `--json`. */
function commands(db: string, root: string): { area: string; args: string[]; json: boolean }[] {
  return [
    { area: "jobs", args: ["jobs", "stats", "--db", db], json: true },
    { area: "relay", args: ["relay", "stats", "--db", db], json: true },
    { area: "files", args: ["files", "consume", root, "--db", db], json: true },
    { area: "receiver", args: ["receiver", "serve", "--db", db, "--port", "0"], json: false },
  ];
}

/** Runs `verq` in this process. */
async function verq(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    out: (t) => (out += t.endsWith("\n") ? t : `${t}\n`),
    err: (t) => (err += t.endsWith("\n") ? t : `${t}\n`),
  });
  return { code, out, err };
}

/** The one stderr line of a failed command, checked: the code, what it must name, no password, no stack. */
function expectOneLine(err: string, c: Case): void {
  expect(err).toMatch(/^verq: VERQ_STORE_UNREACHABLE: [^\n]+\n$/);
  for (const text of c.names) expect(err).toContain(text);
  expect(err).not.toContain(PASSWORD);
  expect(err).not.toMatch(/\n\s+at /);
}

/** The one stdout line of a failed command with `--json`, checked the same way. */
function expectJsonError(out: string, c: Case): void {
  expect(out).toMatch(/^[^\n]+\n$/);
  const parsed = JSON.parse(out) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(["error"]);
  expect(Object.keys(parsed.error)).toEqual(["code", "message"]);
  expect(parsed.error.code).toBe("VERQ_STORE_UNREACHABLE");
  for (const text of c.names) expect(parsed.error.message).toContain(text);
  expect(out).not.toContain(PASSWORD);
}

/** Every area's command on `c.url`, in this process: exit 1 and the one line, human and `--json`; the queue untouched. */
async function expectEveryAreaFails(c: Case): Promise<void> {
  const queue = queueWithOneMessage();
  for (const { area, args, json } of commands(c.url, queue.root)) {
    const human = await verq(args);
    expect([area, human.code, human.out]).toEqual([area, 1, ""]);
    expectOneLine(human.err, c);
    if (json) {
      const machine = await verq([...args, "--json"]);
      expect([area, machine.code, machine.err]).toEqual([area, 1, ""]);
      expectJsonError(machine.out, c);
    }
  }
  expect(queue.inbox()).toEqual(["m1.json"]);
}

describe("S1: a --db URL whose server cannot be reached, or that is malformed, is exit 1 with one plain line", () => {
  it("a refused port: every area's command exits 1 with VERQ_STORE_UNREACHABLE naming the host and port, never the password", async () => {
    await expectEveryAreaFails(refused);
  });

  it("a malformed URL: every area's command exits 1 with VERQ_STORE_UNREACHABLE saying what a URL looks like, never the password", async () => {
    await expectEveryAreaFails(malformed);
  });

  it("the real CLI process: jobs and receiver on a refused port, files --json on a malformed URL; exit 1, one line, no stack trace", async () => {
    const queue = queueWithOneMessage();
    const [jobs, receiver, files] = await Promise.all([
      runVerq(["jobs", "stats", "--db", REFUSED]),
      runVerq(["receiver", "serve", "--db", REFUSED, "--port", "0"]),
      runVerq(["files", "consume", queue.root, "--db", MALFORMED, "--json"]),
    ]);
    for (const run of [jobs, receiver]) {
      expect([run.status, run.stdout]).toEqual([1, ""]);
      expectOneLine(run.stderr, refused);
    }
    expect([files.status, files.stderr]).toEqual([1, ""]);
    expectJsonError(files.stdout, malformed);
    expect(queue.inbox()).toEqual(["m1.json"]);
  });

  it("files replay with a --db that cannot be used moves nothing: the file stays in error/ (exit 1 on a refused port, 4 on a missing SQLite file)", async () => {
    const dir = tempDir("verq-unreachable-replay-");
    cleanups.push(dir.remove);
    const dirs = initQueue(join(dir.path, "q"));
    writeFileSync(join(dirs.error, "bad.json"), "{");
    const onRefused = await verq(["files", "replay", dirs.root, "bad.json", "--db", REFUSED]);
    expect([onRefused.code, onRefused.out]).toEqual([1, ""]);
    expectOneLine(onRefused.err, refused);
    const missing = join(dir.path, "nope.sqlite");
    const onMissing = await verq(["files", "replay", dirs.root, "bad.json", "--db", missing]);
    expect([onMissing.code, onMissing.err]).toEqual([4, expect.stringContaining("verq: VERQ_FILE_NOT_FOUND: no database at")]);
    expect([readdirSync(dirs.error), readdirSync(dirs.inbox), readdirSync(dir.path).sort()]).toEqual([["bad.json"], [], ["q"]]);
  });

  it("a URL of another scheme is a usage error (exit 2, VERQ_INVALID_ARGUMENT) quoting only its scheme, never a file of that name", async () => {
    const queue = queueWithOneMessage();
    const other = `mysql://verq:${PASSWORD}@127.0.0.1/verq`;
    for (const { area, args } of commands(other, queue.root)) {
      const run = await verq(args);
      expect([area, run.code, run.out]).toEqual([area, 2, ""]);
      // The error line, then the usage line of the command.
      expect(run.err.split("\n")[0]).toBe(
        "verq: VERQ_INVALID_ARGUMENT: --db takes a SQLite file or a postgres:// (postgresql://) URL, not a mysql:// URL",
      );
      expect(run.err).toMatch(/\nusage: verq [a-z -]+ \[options\]/);
    }
    expect(readdirSync(process.cwd()).filter((name) => name.startsWith("mysql"))).toEqual([]);
    expect(queue.inbox()).toEqual(["m1.json"]);
  });
});

describe.skipIf(!(await engineAvailable("postgres")))("S1: a --db URL of a database the server does not have", () => {
  it("every area's command exits 1 with VERQ_STORE_UNREACHABLE naming the host and the database, never the password", async () => {
    await expectEveryAreaFails(unknownDatabase);
  });

  it("the real CLI process: relay --json on a postgresql:// URL of an unknown database; exit 1, one JSON line", async () => {
    const run = await runVerq(["relay", "stats", "--db", UNKNOWN_DATABASE, "--json"]);
    expect([run.status, run.stderr]).toEqual([1, ""]);
    expectJsonError(run.stdout, unknownDatabase);
  });
});
