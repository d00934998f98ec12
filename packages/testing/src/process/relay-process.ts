import type { ChildProcess } from "node:child_process";
import { spawnVerq } from "./verq-process.ts";

/** A running `verq relay serve` child process. */
export interface RelayProcess {
  /** `POST {relay}/transfer`. */
  readonly url: string;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * Starts `verq relay serve --port 0` on `db` (a SQLite file or a PostgreSQL URL, as `--db` takes
 * it) in front of `coreUrl` (core timeout 300 ms, recovery sweep after 1 s, then `args`;
 * `failpoints` as its `VERQ_FAILPOINTS`) and resolves once it listens; rejects if it exits first
 * or is not listening within 30 s.
 */
export async function startRelayProcess(
  db: string,
  coreUrl: string,
  options: { args?: readonly string[]; failpoints?: string } = {},
): Promise<RelayProcess> {
  const child = spawnVerq(
    [
      "relay",
      "serve",
      "--db",
      db,
      "--core",
      coreUrl,
      "--port",
      "0",
      // Short defaults for tests, unless `options.args` gives its own (an option given twice with
      // different values is a usage error).
      ...[
        ["--core-timeout", "300ms"],
        ["--recover-after", "1s"],
      ].flatMap(([flag, value]) => (options.args?.includes(flag ?? "") === true ? [] : [flag ?? "", value ?? ""])),
      ...(options.args ?? []),
    ],
    { VERQ_FAILPOINTS: options.failpoints ?? "" },
  );
  let seen = "";
  child.stdout?.on("data", (c: Buffer) => (seen += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (seen += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not start: ${seen}`)), 30_000);
    const check = () => {
      const match = /relay listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(`${match[1]}/transfer`);
      }
    };
    child.stdout?.on("data", check);
    void exited.then(() => reject(new Error(`relay exited before listening: ${seen}`)));
  });
  return {
    url,
    process: child,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
