import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@verq/store";
import { describe, expect, it } from "vitest";
import { runJobsDemo } from "../src/demo/jobs-demo.ts";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

describe("demo", () => {
  it("tells the J3-J8 story with the exact tokens, reasons and statistics", async () => {
    const store = await openStore({ path: ":memory:" });
    const lines: string[] = [];
    try {
      await runJobsDemo(store, (line) => lines.push(line));
    } finally {
      await store.close();
    }
    const text = lines.join("\n");
    expect(text).toContain("worker-A claims cake-7 with token 1");
    expect(text).toContain("worker-B at leaseUntil - 1ms claims nothing");
    expect(text).toContain("worker-B at leaseUntil claims cake-7 with token 2");
    expect(text).toContain("finish with token 1: false");
    expect(text).toContain("cookie-3 fails twice with 2 attempts: dead(exhausted)");
    expect(text).toContain("dead(deadline)");
    expect(text).toContain("token kept at 2");
    expect(text).toContain("refused: VERQ_NOT_DEAD");
    expect(lines.at(-1)).toMatch(
      /DLQ: dead=1 \[deadline=1 \(100%\)\], oldest=tart-5, last redrive=cookie-3 OPS-1234 -> pending, lease expiries=1, stale finishes refused=1/,
    );
  });

  it("runs as the README's first command does, on a fresh SQLite file", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "packages/testing/src/demo/run-demo.ts"], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("DLQ: dead=1");
    expect(existsSync(resolve(repoRoot, ".verq/demo.sqlite"))).toBe(true);
  });
});
