import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "@verq/cli";
import { ENGINES, engineAvailable } from "@verq/testing";
import { startRelay, type RelayHarness } from "./support/relay-harness.ts";

const MINUTE = 60_000;
const savedNow = process.env.VERQ_NOW_MS;
afterAll(() => {
  if (savedNow === undefined) delete process.env.VERQ_NOW_MS;
  else process.env.VERQ_NOW_MS = savedNow;
});

async function verq(...args: string[]): Promise<{ code: number; out: string; ms: number }> {
  let out = "";
  const started = Date.now();
  const code = await runCli(args, { out: (s) => (out += s.endsWith("\n") ? s : `${s}\n`), err: () => {} });
  return { code, out, ms: Date.now() - started };
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] relay resolve and reprocess --rate`, () => {
    let h: RelayHarness;
    beforeEach(async () => {
      h = await startRelay(engine, { coreTimeoutMs: 100 });
      process.env.VERQ_NOW_MS = String(h.clock.now());
    });
    afterEach(() => h.close());

    it("O1: reprocess --rate 20/s spaces its calls to the core (10 FAILED entries: at least 9 intervals of 50 ms) and says so in its summary", async () => {
      await h.core.refuseConnections();
      const guids = Array.from({ length: 10 }, (_, i) => `R-${i}`);
      for (const guid of guids) await h.send({ guid, amount: 1 });
      await h.core.acceptConnections();
      expect(
        (await verq("relay", "reprocess", "--db", h.db, "--core", h.core.url, "--max-attempts", "3", "--rate", "0/s")).code,
      ).toBe(2);
      const run = await verq("relay", "reprocess", "--db", h.db, "--core", h.core.url, "--max-attempts", "3", "--rate", "20/s");
      expect(run.code).toBe(0);
      expect(run.ms).toBeGreaterThanOrEqual(450);
      expect(run.out).toMatch(
        /reprocessed: DONE 10, not DONE 0; at the attempt cap 0; UNKNOWN skipped \(resolve them\) 0; in \d+\.\d s at 20\/s/,
      );
      for (const guid of guids) expect(h.core.calls(guid)).toBe(1);
    });

    it("O1: resolve --rate 10/s spaces its inquiries (5 UNKNOWN entries: at least 4 intervals of 100 ms); the JSON report is the usual one", async () => {
      h.core.dropAnswers();
      const guids = Array.from({ length: 5 }, (_, i) => `U-${i}`);
      for (const guid of guids) await h.send({ guid, amount: 1 });
      h.core.dropAnswers(false);
      process.env.VERQ_NOW_MS = String(h.clock.now() + 10 * MINUTE);
      const run = await verq(
        "relay",
        "resolve",
        "--db",
        h.db,
        "--core",
        h.core.url,
        "--min-age",
        "10m",
        "--rate",
        "10/s",
        "--json",
      );
      expect(run.code).toBe(0);
      expect(run.ms).toBeGreaterThanOrEqual(400);
      expect(JSON.parse(run.out)).toEqual({ done: guids, failed: [], young: [], errors: [] });
    });
  });
}
