import { ENGINES, createTestDatabase, engineAvailable, runVerq, startReceiver } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { leftBehind } from "../support/left-behind.ts";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("verq receiver serve", () => {
  it("without --db it is a usage error (exit 2)", async () => {
    const run = await runVerq(["receiver", "serve", "--port", "0"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--db");
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq receiver serve --db`, () => {
    it("bad input: a port that is not a whole number up to 65535 exits 2 with VERQ_INVALID_ARGUMENT and creates nothing (no SQLite file, no table)", async () => {
      const database = await createTestDatabase(engine, "receiver.sqlite");
      cleanups.push(() => database.dispose());
      const runs = await Promise.all(
        ["http", "-1", "65536", "1.5"].map((port) => runVerq(["receiver", "serve", "--db", database.db, "--port", port])),
      );
      for (const run of runs) {
        expect(run.status).toBe(2);
        expect(run.stderr).toContain("VERQ_INVALID_ARGUMENT");
      }
      expect(await leftBehind(database)).toEqual([]);
    });

    it("serves the inventory receiver: a repeated key adds its quantity once; SIGTERM closes it", async () => {
      const database = await createTestDatabase(engine, "receiver.sqlite");
      cleanups.push(() => database.dispose());
      const receiver = await startReceiver(database.db);
      cleanups.push(async () => {
        await receiver.stop();
        // Stopped by SIGTERM, it closes the server and the store and exits 0 (not killed by the signal).
        expect([receiver.process.exitCode, receiver.process.signalCode]).toEqual([0, null]);
      });
      for (let i = 0; i < 2; i++) {
        const response = await fetch(receiver.url, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": "cake-7" },
          body: JSON.stringify({ quantity: 7 }),
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ ok: true });
      }
      const inventory = (await (await fetch(new URL("/inventory", receiver.url))).json()) as Record<string, number>;
      expect(inventory).toEqual({ inventory: 7, requests: 2, effects: 1 });
    });
  });
}
