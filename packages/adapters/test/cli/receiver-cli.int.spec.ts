import fs from "node:fs";
import path from "node:path";
import { runVerq, startReceiver, tempDir } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("verq receiver serve", () => {
  it("bad input: a port that is not a whole number up to 65535 exits 2 with VERQ_INVALID_ARGUMENT and creates no database", async () => {
    const dir = tempDir("receiver-cli");
    cleanups.push(dir.remove);
    for (const port of ["http", "-1", "65536", "1.5"]) {
      const db = path.join(dir.path, `receiver-${port}.sqlite`);
      const run = await runVerq(["receiver", "serve", "--db", db, "--port", port]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("VERQ_INVALID_ARGUMENT");
      expect(fs.existsSync(db)).toBe(false);
    }
  });

  it("without --db it is a usage error (exit 2)", async () => {
    const run = await runVerq(["receiver", "serve", "--port", "0"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--db");
  });

  it("serves the inventory receiver: a repeated key adds its quantity once; SIGTERM closes it", async () => {
    const dir = tempDir("receiver-cli");
    cleanups.push(dir.remove);
    const receiver = await startReceiver(path.join(dir.path, "receiver.sqlite"));
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
