import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/*
 * The process plumbing of the high-availability cluster: every long-running program of a cluster
 * runs in a process group of its own, with its output in a log file of the cluster's folder, and
 * every program of a cluster names that folder on its command line. So the folder alone is enough
 * to find and kill a cluster, also from another process (`pnpm ha-cluster stop`).
 */

/** A long-running program of the cluster: the leader of its own process group. */
export interface ClusterProcess {
  readonly pid: number;
  /** The file its standard output and error are appended to. */
  readonly log: string;
}

/** How `spawnLogged` starts a program. */
export interface SpawnOptions {
  readonly log: string;
  readonly env: NodeJS.ProcessEnv;
  /** The uid and gid to run it as (PostgreSQL and Patroni refuse to run as root); the caller's when absent. */
  readonly user?: { uid: number; gid: number };
}

/**
 * Starts `command` detached, in a new process group, its output appended to `options.log`. The
 * caller's event loop does not wait for it, so a command-line entry can exit and leave it running.
 */
export function spawnLogged(command: string, args: readonly string[], options: SpawnOptions): ClusterProcess {
  const fd = fs.openSync(options.log, "a");
  try {
    const child = spawn(command, [...args], {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: options.env,
      // In the cluster's own folder: the caller's may be closed to the postgres user (a checkout
      // under a private temporary folder), and Patroni's bootstrap fails where it cannot return to its directory.
      cwd: path.dirname(options.log),
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
    });
    // A program that cannot start at all is reported by the caller's wait with the log's tail.
    child.on("error", (error) => fs.appendFileSync(options.log, `spawn ${command} failed: ${error.message}\n`));
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    return { pid: child.pid, log: options.log };
  } finally {
    fs.closeSync(fd);
  }
}

interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly args: string;
}

/** Every live process (zombies, which are gone but for their exit status, left out). */
function processes(): ProcessRow[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !(m[4] ?? "").startsWith("Z"))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] ?? "" }));
}

/** The processes whose command line names `dir` (a folder or file of a cluster), apart from this process and its group. */
export function processesUnder(dir: string): ProcessRow[] {
  const rows = processes();
  const ownGroup = rows.find((p) => p.pid === process.pid)?.pgid;
  return rows.filter((p) => p.args.includes(dir) && p.pid !== process.pid && p.pgid !== ownGroup);
}

/**
 * SIGKILL to every process whose command line names `dir`, to its process group and to all its
 * descendants; returns the pids it sent the signal to. Groups are not enough: Patroni starts each
 * PostgreSQL server in a session of its own, and PostgreSQL puts every backend in a session of its
 * own too, while a backend's command line (`postgres: verq-ha: …`) names no folder. So the
 * programs are stopped first (SIGSTOP: a stopped postmaster forks no new backend), then their
 * descendants are read and everything is killed. Synchronous, so that an `exit` handler can call it.
 */
export function killEverythingUnder(dir: string): number[] {
  const named = processesUnder(dir);
  for (const p of named) signal(p.pid, "SIGSTOP");
  const rows = processes();
  const ownGroup = rows.find((p) => p.pid === process.pid)?.pgid;
  const doomed = new Set(named.map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of rows) {
      if (!doomed.has(p.pid) && (doomed.has(p.ppid) || named.some((n) => n.pgid === p.pgid)) && p.pid !== process.pid) {
        doomed.add(p.pid);
        grew = true;
      }
    }
  }
  for (const pgid of new Set(named.map((p) => p.pgid))) if (pgid > 1 && pgid !== ownGroup) signal(-pgid, "SIGKILL");
  for (const pid of doomed) signal(pid, "SIGKILL");
  return [...doomed];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: it has exited already.
  }
}

/** Waits until none of `pids` is a live process. */
export async function waitGone(pids: readonly number[], timeoutMs = 15_000): Promise<void> {
  await until(`processes ${pids.join(", ")} to exit`, timeoutMs, () => {
    const live = new Set(processes().map((p) => p.pid));
    return Promise.resolve(pids.some((pid) => live.has(pid)) ? undefined : true);
  });
}

/** Kills every process under `dir` until none is left (a server Patroni was starting meanwhile included). */
export async function killAllUnder(dir: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let killed = killEverythingUnder(dir); killed.length > 0; killed = killEverythingUnder(dir)) {
    await waitGone(killed, Math.max(1_000, deadline - Date.now()));
    if (Date.now() > deadline) {
      const left = processesUnder(dir).map((p) => `${p.pid} ${p.args}`);
      throw new Error(`processes of ${dir} survived SIGKILL:\n${left.join("\n")}`);
    }
  }
}

/** The last `lines` lines of a log file, or a note that it does not exist. */
export function tail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return `(no ${file})`;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns a value other than undefined, and returns it; after `timeoutMs`
 * throws with `what` and the last error `check` threw, which is usually the reason. `hopeless`,
 * when given, is asked before each try and ends the wait at once with the reason it returns (a
 * program that exited will not answer however long one waits).
 */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  hopeless?: () => string | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const reason = hopeless?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last: ${last})` : ""}`);
    await sleep(250);
  }
}
