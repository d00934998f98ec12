import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root, found from this file's place (`packages/store/test/helpers/`), not from the cwd. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/**
 * tsx's ESM loader as an absolute `file:` URL, resolved from this file, so that
 * `node --import <it>` works whatever the child's cwd is and in a fresh clone elsewhere.
 */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** Absolute path of a helper script in this folder. */
export function helperScript(name: string): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), name);
}

/** A running TypeScript child process and what it has printed so far. */
export interface TsChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the first stdout line that satisfies `match`; rejects on exit or after `timeoutMs`. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or the signal name); kills the child (by its pid) after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<number | string>;
}

/** Starts `node --import tsx <script> ...args` with the current Node binary, cwd at the repo root. */
export function runTsChild(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): TsChild {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let closed = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exit = new Promise<number | string>((resolve) => {
    child.once("close", (code, signal) => {
      closed = true;
      resolve(code ?? signal ?? "unknown");
    });
  });

  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    waitForLine(match, timeoutMs = 15_000) {
      return new Promise<string>((resolve, reject) => {
        const check = (): boolean => {
          const line = out.split("\n").find((l) => match(l));
          if (line === undefined) return false;
          done();
          resolve(line);
          return true;
        };
        const onData = (): void => void check();
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no matching line from ${path.basename(script)} within ${timeoutMs} ms; stderr:\n${err}`));
        }, timeoutMs);
        const onExit = (): void => {
          if (check()) return;
          done();
          reject(new Error(`${path.basename(script)} exited before the expected line; stderr:\n${err}`));
        };
        const done = (): void => {
          clearTimeout(timer);
          child.stdout.off("data", onData);
          child.off("close", onExit);
        };
        if (check()) return;
        if (closed) return onExit();
        child.stdout.on("data", onData);
        child.once("close", onExit);
      });
    },
    async exited(timeoutMs = 30_000) {
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
