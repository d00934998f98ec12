import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";

// The `verq` entry point of the installed @verq/cli, beside its index: `src/bin.ts` in the
// workspace (run through tsx), `dist/bin.js` in a published package.
const cliIndex = createRequire(import.meta.url).resolve("@verq/cli");
const BIN = join(dirname(cliIndex), `bin${extname(cliIndex)}`);

/**
 * The Node arguments that start the `verq` CLI: the bundle named by `VERQ_CLI_BUNDLE` when it is
 * set and not empty (the workspace's test run bundles the sources once, as the package's build
 * does), else the installed entry point (the sources through tsx in the workspace). `env` is the
 * child's environment: a test that must see the sources' own modules sets `VERQ_CLI_BUNDLE: ""`.
 */
export function verqCommand(env: NodeJS.ProcessEnv = {}): string[] {
  const bundle = env.VERQ_CLI_BUNDLE ?? process.env.VERQ_CLI_BUNDLE ?? "";
  if (bundle !== "") return [bundle];
  return extname(BIN) === ".ts" ? ["--import", "tsx", BIN] : [BIN];
}

/** The result of a `verq` process that ran to its end. */
export interface VerqRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `verq` CLI as a child process (see {@link spawnVerq}) and resolves when it has exited. */
export function runVerq(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<VerqRun> {
  const child = spawnVerq(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolvePromise, reject) => {
    child.once("error", reject);
    child.once("close", (status, signal) => resolvePromise({ status, signal, stdout, stderr }));
  });
}

/**
 * Starts the real `verq` CLI as a long-running child process, in this process's working
 * directory and environment with `VERQ_FAILPOINTS` and `VERQ_NOW_MS` cleared unless `env` sets
 * them. Its stdout and stderr are pipes.
 */
export function spawnVerq(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [...verqCommand(env), ...args], {
    env: { ...process.env, VERQ_FAILPOINTS: "", VERQ_NOW_MS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A running `verq receiver serve` and its URL. */
export interface RunningReceiver {
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `verq receiver serve --port 0` on `db` (what `--db` takes: a SQLite file or a
 * PostgreSQL URL), with `args` after those, and resolves once it prints its address (the URL ends with `/`); rejects if it
 * exits first or is not listening within 30 s.
 */
export async function startReceiver(db: string, args: readonly string[] = []): Promise<RunningReceiver> {
  const child = spawnVerq(["receiver", "serve", "--db", db, "--port", "0", ...args]);
  const url = await new Promise<string>((resolvePromise, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`receiver did not start: ${seen}`)), 30_000);
    child.stdout?.on("data", (c: Buffer) => {
      seen += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolvePromise(`${match[1]}/`);
      }
    });
    child.stderr?.on("data", (c: Buffer) => (seen += c.toString()));
    child.once("exit", () => reject(new Error(`receiver exited: ${seen}`)));
  });
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolvePromise) => {
        if (child.exitCode !== null) return resolvePromise();
        child.once("exit", () => resolvePromise());
        child.kill("SIGTERM");
      }),
  };
}

/** A fresh folder under the OS temp dir; `remove()` deletes it and everything in it. */
export function tempDir(prefix = "verq-test-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
