import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "@verq/cli";
import { ENGINES, engineAvailable, tempDir } from "@verq/testing";
import { startRelay, type RelayHarness } from "./support/relay-harness.ts";

const MINUTE = 60_000;
const savedNow = process.env.VERQ_NOW_MS;

afterAll(() => {
  if (savedNow === undefined) delete process.env.VERQ_NOW_MS;
  else process.env.VERQ_NOW_MS = savedNow;
});

/** Runs `verq …` in this process and captures its output and exit code. */
async function verq(...args: string[]): Promise<{ code: number; out: string; err: string; json: () => unknown }> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (s) => (out += s.endsWith("\n") ? s : `${s}\n`),
    err: (s) => (err += s.endsWith("\n") ? s : `${s}\n`),
  };
  const code = await runCli(args, io);
  return { code, out, err, json: () => JSON.parse(out) as unknown };
}
const at = (ms: number) => (process.env.VERQ_NOW_MS = String(ms));

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let h: RelayHarness;
    beforeEach(async () => {
      h = await startRelay(engine, { coreTimeoutMs: 100 });
      process.env.VERQ_NOW_MS = String(h.clock.now());
    });
    afterEach(async () => {
      await h.close();
    });

    describe("verq relay … (CLI, with --json and documented exit codes)", () => {
      it("show: the entry and its timeline; --json has guid, state, code, attempts, updatedAt, events; unknown GUID → 4, malformed → 2", async () => {
        await h.send({ guid: "K-1", amount: 3 });
        const shown = await verq("relay", "show", "K-1", "--db", h.db, "--json");
        expect(shown.code).toBe(0);
        expect(shown.json()).toMatchObject({ guid: "K-1", state: "DONE", code: "0000", attempts: 1, updatedAt: h.clock.now() });
        expect((shown.json() as { events: { type: string }[] }).events.map((e) => e.type)).toEqual([
          "guid.received",
          "guid.sent",
          "guid.done",
        ]);
        const human = await verq("relay", "show", "K-1", "--db", h.db);
        expect(human.out).toMatch(/^K-1 DONE code=0000 attempts=1 updated=/);
        expect(human.out).toContain("guid.sent attempt=1 by=claim");
        const unknown = await verq("relay", "show", "K-404", "--db", h.db, "--json");
        expect([unknown.code, (unknown.json() as { error: { code: string } }).error.code]).toEqual([4, "VERQ_UNKNOWN_GUID"]);
        expect((await verq("relay", "show", "not a guid", "--db", h.db)).code).toBe(2);
      });

      it("stats: counts by state, oldest UNKNOWN and FAILED, attempts", async () => {
        h.core.dropAnswers();
        await h.send({ guid: "K-2", amount: 3 });
        const stats = await verq("relay", "stats", "--db", h.db, "--json");
        expect([stats.code, stats.json()]).toMatchObject([
          0,
          { total: 1, byState: { UNKNOWN: 1 }, oldestUnknown: { guid: "K-2" }, attempts: { total: 1 } },
        ]);
        expect((await verq("relay", "stats", "--db", h.db)).out).toContain("oldest UNKNOWN: K-2 since");
      });

      it("resolve: exit 0 leaving a young UNKNOWN alone; DONE after the min age; exit 1 when an inquiry fails", async () => {
        h.core.dropAnswers();
        await h.send({ guid: "K-3", amount: 3 });
        h.core.dropAnswers(false);
        const young = await verq("relay", "resolve", "--db", h.db, "--core", h.core.url, "--min-age", "10m", "--json");
        expect([young.code, young.json()]).toEqual([0, { done: [], failed: [], young: ["K-3"], errors: [] }]);
        at(h.clock.now() + 10 * MINUTE);
        h.core.failInquiries();
        const failing = await verq("relay", "resolve", "--db", h.db, "--core", h.core.url, "--min-age", "10m");
        expect(failing.code).toBe(1);
        expect(failing.out).toContain("inquiry errors (left UNKNOWN): 1 (K-3: HTTP 503)");
        h.core.failInquiries(false);
        const done = await verq("relay", "resolve", "--db", h.db, "--core", h.core.url, "--min-age", "10m");
        expect([done.code, done.out.split("\n")[0]]).toEqual([0, "resolved: DONE 1 (K-3), FAILED 0"]);
        expect((await verq("relay", "resolve", "--db", h.db, "--core", h.core.url, "--min-age", "ten")).code).toBe(2);
      });

      it("reprocess: exit 1 while the core still refuses, 0 once the FAILED entry is DONE; --max-attempts is required", async () => {
        await h.core.refuseConnections();
        await h.send({ guid: "K-4", amount: 3 });
        const still = await verq("relay", "reprocess", "--db", h.db, "--core", h.core.url, "--max-attempts", "3", "--json");
        expect([still.code, still.json()]).toMatchObject([1, { done: 0, notDone: 1 }]);
        await h.core.acceptConnections();
        const done = await verq("relay", "reprocess", "--db", h.db, "--core", h.core.url, "--max-attempts", "3");
        expect(done.code).toBe(0);
        expect(done.out).toContain("K-4 sent again (attempt 3) -> DONE 0000");
        expect((await verq("relay", "reprocess", "--db", h.db, "--core", h.core.url)).code).toBe(2);
        expect(h.core.calls("K-4")).toBe(1);
      });

      it("purge: exit 3 when the retention is not longer than the resend window (nothing deleted), 0 otherwise", async () => {
        await h.send({ guid: "K-5", amount: 3 });
        at(h.clock.now() + 8 * 86_400_000);
        const refused = await verq("relay", "purge", "--db", h.db, "--retention", "1d", "--resend-window", "1d");
        expect(refused.code).toBe(3);
        expect(refused.err).toContain("verq: VERQ_PURGE_RETENTION_TOO_SHORT:");
        expect(await h.entry("K-5")).not.toBeNull();
        const purged = await verq("relay", "purge", "--db", h.db, "--retention", "7d", "--resend-window", "1d", "--json");
        expect([purged.code, purged.json()]).toMatchObject([0, { purged: 1, events: 3 }]);
        expect(await h.entry("K-5")).toBeNull();
        expect((await verq("relay", "purge", "--db", h.db, "--retention", "7", "--resend-window", "1d")).code).toBe(2);
      });

      it("serve: a --recover-after not longer than --core-timeout is a usage error (exit 2)", async () => {
        const bad = await verq(
          "relay",
          "serve",
          "--db",
          h.db,
          "--core",
          h.core.url,
          "--port",
          "0",
          "--core-timeout",
          "2m",
          "--recover-after",
          "1m",
        );
        expect(bad.code).toBe(2);
        expect(bad.err).toContain("--recover-after must be longer than --core-timeout");
      });
    });
  });
}

describe("verq relay purge refused by the machine", () => {
  it("a retention that does not cover the resend window is exit 3 before the store is opened: a database that does not exist is not created", async () => {
    const dir = tempDir("verq-purge-");
    try {
      const db = join(dir.path, "never.sqlite");
      const refused = await verq("relay", "purge", "--db", db, "--retention", "1d", "--resend-window", "2d");
      expect(refused.code).toBe(3);
      expect(refused.err).toContain("verq: VERQ_PURGE_RETENTION_TOO_SHORT:");
      expect(existsSync(db)).toBe(false);
      expect(readdirSync(dir.path)).toEqual([]);
    } finally {
      dir.remove();
    }
  });
});
