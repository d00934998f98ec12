import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** How a service process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running orders service in a child process of its own. */
export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  /** ms from spawn to the `listening` line. */
  readonly startMs: number;
  /** Every JSON line the process printed on stdout. */
  readonly events: readonly Record<string, unknown>[];
  readonly exited: Promise<Exit>;
  stderr(): string;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * Starts `src/main.ts` with tsx in a child process on 127.0.0.1 (a free port) over the SQLite
 * file `db`, with `env` added to this process's environment (`VERQ_FAILPOINTS` only when given).
 * Resolves once the service prints its `listening` line; rejects if it exits first.
 */
export async function startService(
  db: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<ServiceProcess> {
  const started = performance.now();
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv.VERQ_FAILPOINTS;
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--db", db, "--host", "127.0.0.1", "--port", "0", ...args], {
    cwd: REPO_ROOT,
    env: { ...childEnv, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      if (event.event === "listening" && typeof event.url === "string") resolve(event.url);
    });
    void exited.then((exit) => reject(new Error(`the service exited (${exit.code ?? exit.signal}) before listening: ${stderr}`)));
  });
  const url = await listening;
  const pid = child.pid;
  if (pid === undefined) throw new Error("the service process has no pid");
  return {
    url,
    pid,
    startMs: Math.round(performance.now() - started),
    events,
    exited,
    stderr: () => stderr,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
  };
}
