import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const EXAMPLE = fileURLToPath(new URL("../../", import.meta.url));

/** The service running as `src/main.ts` in a child process. */
export interface ServiceProcess {
  readonly url: string;
  /** Every JSON line it printed on stdout. */
  readonly lines: readonly Record<string, unknown>[];
  stderr(): string;
  /** Sends `signal` and resolves with the exit code once the process ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `src/main.ts` as `pnpm start` does, from the example's folder, over `db` on 127.0.0.1
 * and a free port; resolves once it prints its `listening` line, rejects if it exits first.
 */
export async function startServiceProcess(db: string): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=verq-source", "--import", "tsx", "src/main.ts", "--db", db, "--host", "127.0.0.1", "--port", "0"],
    { cwd: EXAMPLE, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (parsed.event === "listening" && typeof parsed.url === "string") resolve(parsed.url);
    });
    void exited.then((code) => reject(new Error(`the service exited (${code}) before listening: ${stderr}`)));
  });
  return {
    url,
    lines,
    stderr: () => stderr,
    stop: (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
  };
}
