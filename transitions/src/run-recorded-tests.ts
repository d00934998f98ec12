import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRANSITION_LOG_ENV, readTransitionLogs } from "./transition-log.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = fileURLToPath(new URL("../vitest.config.ts", import.meta.url));
const VITEST = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");

/** What a recorded test run took: the transitions, merged from every test process, and how vitest exited. */
export interface RecordedRun {
  readonly recorded: Set<string>;
  readonly exitCode: number;
  /** The run's output when it was captured (`quiet`), else empty. */
  readonly output: string;
}

/**
 * Runs the given test files (paths or filters relative to the repository) in a child vitest with
 * transition recording on, and merges what every test process recorded. A real run of the real
 * tests: a transition counts as covered only if a test took it. `quiet` captures the output
 * instead of showing it; `env` is added to the child's environment.
 */
export async function runRecordedTests(
  files: readonly string[],
  options: { readonly quiet?: boolean; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<RecordedRun> {
  const quiet = options.quiet ?? false;
  const dir = mkdtempSync(join(tmpdir(), "verq-transitions-"));
  try {
    const child = spawn(process.execPath, [VITEST, "run", "--config", CONFIG, ...files], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env, [TRANSITION_LOG_ENV]: dir },
      stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => resolve(code ?? 1));
    });
    return { recorded: readTransitionLogs(dir), exitCode, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
