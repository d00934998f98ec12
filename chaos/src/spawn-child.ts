import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Starts one of `src/workers/*.ts` with this process's loader (so `.ts` runs), its stdout
 * ignored and its stderr passed through.
 */
export function spawnWorkerChild(script: string, args: readonly string[]): ChildProcess {
  const path = fileURLToPath(new URL(`./workers/${script}`, import.meta.url));
  return spawn(process.execPath, [...process.execArgv, path, ...args], { stdio: ["ignore", "ignore", "inherit"] });
}
