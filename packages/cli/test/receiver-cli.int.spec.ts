import { ENGINES, createTestDatabase, engineAvailable, runVerq, startReceiver } from "@verq/testing";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { leftBehind } from "../../adapters/test/support/left-behind.ts";

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

  it("--request-timeout: a client that stops half-way through its headers gets 408 VERQ_REQUEST_TIMEOUT after it, not after the default 30 s; out of 1s..1h is exit 2", async () => {
    const database = await createTestDatabase("sqlite", "receiver.sqlite");
    cleanups.push(() => database.dispose());
    for (const bad of ["500ms", "2h"]) {
      const run = await runVerq(["receiver", "serve", "--db", database.db, "--port", "0", "--request-timeout", bad]);
      expect([run.status, run.stderr]).toEqual([2, expect.stringContaining("VERQ_INVALID_ARGUMENT: --request-timeout")]);
    }
    const receiver = await startReceiver(database.db, ["--request-timeout", "1s"]);
    cleanups.push(() => receiver.stop());
    const { port } = new URL(receiver.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
      socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"VERQ_REQUEST_TIMEOUT"');
    expect(Date.now() - started).toBeLessThan(20_000);
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
