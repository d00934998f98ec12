import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { verqCommand } from "@verq/testing";

/** The repository root, computed from this file's place, not from the cwd. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");

/** A running child process and its output so far. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code, or the signal's name. */
  exited(): Promise<number | string>;
}

function start(args: readonly string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, VERQ_FAILPOINTS: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exit = new Promise<number | string>((done) => child.once("close", (code, signal) => done(code ?? signal ?? "unknown")));
  return { process: child, stdout: () => out, stderr: () => err, exited: () => exit };
}

/** Starts the real `verq` CLI (as @verq/testing's `verqCommand` does) from the repo root. */
export const spawnVerq = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Child =>
  start([...verqCommand(env), ...args], env);

/** Starts a helper script of this folder. */
export const spawnHelper = (script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Child =>
  start(["--import", "tsx", resolve(dirname(fileURLToPath(import.meta.url)), script), ...args], env);

/** Runs the real CLI to its end. */
export async function runVerq(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | string; stdout: string; stderr: string }> {
  const child = spawnVerq(args, env);
  const status = await child.exited();
  return { status, stdout: child.stdout(), stderr: child.stderr() };
}
