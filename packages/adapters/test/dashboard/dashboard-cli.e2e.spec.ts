import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, tempDir, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "@verq/cli";
import { initQueue } from "../../src/files/queue-dirs.ts";
import { SEEDED, seedDashboard } from "./support/seed-dashboard.ts";
import { TICKETS, seedTickets } from "./support/seed-streams.ts";
import { startDashboard, type RunningDashboard } from "./support/start-dashboard.ts";

/*
 * `verq dashboard` as a user runs it: a real process on each engine that prints its URL, serves
 * the pages and stops on SIGTERM with exit 0; options checked before the database is opened
 * (exit 2, nothing created); a SQLite file that does not exist is exit 4 and is not created;
 * `dashboard --help` loads neither the store nor fastify nor dagre.
 */

async function verq(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** A module that exports the ticket's stream definition. */
const TICKET_MODULE = fileURLToPath(new URL("./support/ticket-streams.ts", import.meta.url));

let cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("verq dashboard: options", () => {
  it.each([
    [["--port", "70000"], "--port must be a whole number from 0 to 65535"],
    [["--port", "abc"], "--port must be a whole number"],
    [["--host", "example.com"], "--host must be an IP address"],
    [["--files", "/no/such/queue"], "is not a file queue"],
    [["--streams", "/no/such/streams.mjs"], "--streams: no module at"],
  ])("%j is exit 2 before the database is opened: no file is created", async (args, message) => {
    const dir = tempDir("verq-dashboard-cli-");
    cleanups.push(dir.remove);
    const db = join(dir.path, "never.sqlite");
    const run = await verq("dashboard", "--db", db, ...args);
    expect([run.code, run.out]).toEqual([2, ""]);
    expect(run.err).toContain("verq: VERQ_INVALID_ARGUMENT:");
    expect(run.err).toContain(message);
    expect(existsSync(db)).toBe(false);
  });

  it.each([
    ["readable by others", "token=operator-token-0123456789\n", 0o644, "make it private (chmod 600)"],
    ["with a short token", "token=short\n", 0o600, "at least 16 characters"],
    ["with an unknown key", "secret=operator-token-0123456789\n", 0o600, "expected token=…, user=… or password=…"],
  ])("--auth-file %s is exit 2 before the database is opened, never naming the secret", async (_what, text, mode, message) => {
    const dir = tempDir("verq-dashboard-cli-");
    cleanups.push(dir.remove);
    const db = join(dir.path, "never.sqlite");
    const file = join(dir.path, "dashboard.auth");
    writeFileSync(file, text);
    chmodSync(file, mode);
    const run = await verq("dashboard", "--db", db, "--auth-file", file);
    expect([run.code, run.out]).toEqual([2, ""]);
    expect(run.err).toContain("verq: VERQ_INVALID_ARGUMENT:");
    expect(run.err).toContain(message);
    expect(run.err).not.toContain("operator-token");
    expect(existsSync(db)).toBe(false);
  });

  it("a SQLite file that does not exist is exit 4 (VERQ_FILE_NOT_FOUND) and is not created", async () => {
    const dir = tempDir("verq-dashboard-cli-");
    cleanups.push(dir.remove);
    const db = join(dir.path, "missing.sqlite");
    const run = await verq("dashboard", "--db", db);
    expect(run.code).toBe(4);
    expect(run.err).toContain("VERQ_FILE_NOT_FOUND");
    expect(existsSync(db)).toBe(false);
  });

  it("dashboard --help loads neither the store nor fastify nor dagre", async () => {
    const dir = tempDir("verq-dashboard-modules-");
    cleanups.push(dir.remove);
    const log = join(dir.path, "modules.log");
    const recorder = new URL("../../../cli/test/support/record-modules.mjs", import.meta.url).href;
    const run = await runVerq(["dashboard", "--help"], {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${recorder}`,
      VERQ_MODULE_LOG: log,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("--files <root>");
    expect(run.stdout).toContain("--streams <module>");
    const modules = readFileSync(log, "utf8").split("\n").filter(Boolean);
    const loaded = (part: string) => modules.some((url) => url.includes(part));
    expect(loaded("/node_modules/commander/")).toBe(true);
    expect(["/node_modules/fastify/", "/node_modules/@dagrejs/", "/packages/store/", "/dashboard/"].filter(loaded)).toEqual([]);
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq dashboard`, () => {
    let database: TestDatabase;
    let dashboard: RunningDashboard | undefined;
    afterEach(async () => {
      await dashboard?.stop();
      dashboard = undefined;
      await database.dispose();
    });

    it("prints its 127.0.0.1 URL, serves the overview, a timeline and the queue's folders, and stops with exit 0 on SIGTERM", async () => {
      database = await createTestDatabase(engine, "dashboard.sqlite");
      const store = await database.open();
      await seedDashboard(store);
      await store.close();
      const queue = tempDir("verq-dashboard-queue-");
      cleanups.push(queue.remove);
      initQueue(queue.path);

      dashboard = await startDashboard(["--db", database.db, "--port", "0", "--files", queue.path]);
      expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const overview = await fetch(dashboard.url);
      expect(overview.status).toBe(200);
      const body = await overview.text();
      expect(body).toContain(`<tr data-job="${SEEDED.claimedTwice}">`);
      expect(body).toContain('<dd data-folder="inbox">0</dd>');
      const job = await fetch(new URL(`jobs/${SEEDED.claimedTwice}`, dashboard.url));
      expect(job.status).toBe(200);
      expect(await job.text()).toContain('data-col="owner"><code>worker-b</code>');
      expect((await fetch(new URL("jobs/nope", dashboard.url))).status).toBe(404);
      expect(await dashboard.stop()).toBe(0);
      dashboard = undefined;
    });

    it("--streams draws the module's stream types with their counts and serves each stream's page", async () => {
      database = await createTestDatabase(engine, "streams.sqlite");
      const store = await database.open();
      await seedTickets(store);
      await store.close();

      // The module is TypeScript, loaded through tsx as a service runs a .ts module of its own.
      const tsx = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import tsx` };
      dashboard = await startDashboard(["--db", database.db, "--port", "0", "--streams", TICKET_MODULE], tsx);
      const overview = await (await fetch(dashboard.url)).text();
      expect(overview).toContain('<figure class="machine" data-stream-type="ticket">');
      expect(overview).toMatch(/data-state="taken" data-count="2"/);
      const page = await fetch(new URL(`streams/ticket/${TICKETS.takenTwice.id}`, dashboard.url));
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/id="stream-token">2</);
      expect((await fetch(new URL("streams/ticket/nope", dashboard.url))).status).toBe(404);
      expect(await dashboard.stop()).toBe(0);
      dashboard = undefined;
    });
  });
}
