import type { ChildProcess } from "node:child_process";
import { spawnVerq } from "@verq/testing";

/** A running `verq dashboard` and its URL (ending with `/`). */
export interface RunningDashboard {
  readonly url: string;
  readonly process: ChildProcess;
  /** Sends SIGTERM and resolves to the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real `verq dashboard` with `args` (and `env` over this process's environment) and
 * resolves once it prints its URL; rejects if it exits first or takes 30 s.
 */
export async function startDashboard(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunningDashboard> {
  const child = spawnVerq(["dashboard", ...args], env);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`verq dashboard did not start: ${seen}`)), 30_000);
    child.stdout?.on("data", (c: Buffer) => {
      seen += c.toString();
      const match = /dashboard on (http:\/\/\S+\/) /.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on("data", (c: Buffer) => (seen += c.toString()));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`verq dashboard exited: ${seen}`));
    });
  });
  return {
    url,
    process: child,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
