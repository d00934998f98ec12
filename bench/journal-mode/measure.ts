/**
 * Measures SQLite journal modes for the job lifecycle (SPEC J9: the journal mode is a
 * documented choice, defaulted by measurement).
 *
 *   npx tsx bench/journal-mode/measure.ts [jobs=2000] [--dir <folder on the disk to measure>]
 *
 * Part 1, one process: for each setting, on a fresh file, N times enqueue → claim → finish ok
 * (three transactions per job, each committed on its own, as a worker does). Settings are
 * interleaved and rotated per round, three rounds, median reported.
 * Part 2, two processes: both open one file and each enqueues N/2 jobs, claiming and finishing
 * whatever is due (its own or the other's) after each enqueue and draining at the end, for WAL
 * and the rollback journal; N divided by the wall time from a common start.
 *
 * The same file runs as the child of part 2 when given `--child`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { JobQueue, openStore } from "@verq/store";
import { startReadyChildren } from "../src/ready-children.ts";

type JournalMode = "wal" | "delete";
type Synchronous = "normal" | "full";
interface Setting {
  readonly journalMode: JournalMode;
  readonly synchronous: Synchronous;
}

const SETTINGS: readonly Setting[] = [
  { journalMode: "wal", synchronous: "normal" },
  { journalMode: "wal", synchronous: "full" },
  { journalMode: "delete", synchronous: "full" },
  { journalMode: "delete", synchronous: "normal" },
];
const ROUNDS = 3;
const label = (s: Setting): string => `${s.journalMode} + ${s.synchronous}`;
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** enqueue → claim → finish ok for `count` jobs named `<prefix>-<i>`; returns the seconds taken. */
async function lifecycle(queue: JobQueue, prefix: string, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    await queue.enqueue({ id: `${prefix}-${i}`, payload: { quantity: i } });
    const job = await queue.claim(prefix);
    if (job === null) throw new Error("nothing to claim");
    if (!(await queue.finish(job.id, job.token, "ok"))) throw new Error("finish refused");
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The child of part 2: enqueue one, then claim and finish one (any process's), N/2 times; then drain. */
async function sharedLifecycle(queue: JobQueue, prefix: string, count: number): Promise<void> {
  const claimAndFinish = async (): Promise<boolean> => {
    const job = await queue.claim(prefix);
    if (job !== null && !(await queue.finish(job.id, job.token, "ok"))) throw new Error("finish refused");
    return job !== null;
  };
  for (let i = 0; i < count; i++) {
    await queue.enqueue({ id: `${prefix}-${i}`, payload: { quantity: i } });
    await claimAndFinish();
  }
  while (await claimAndFinish()) {
    // Drain: the other process may have left due jobs.
  }
}

async function runChild(args: readonly string[]): Promise<void> {
  const [dbPath, journalMode, synchronous, countText, prefix] = args;
  if (dbPath === undefined || prefix === undefined) throw new Error("usage: --child <db> <journal> <sync> <count> <prefix>");
  const store = await openStore({
    path: dbPath,
    journalMode: journalMode as JournalMode,
    synchronous: synchronous as Synchronous,
  });
  process.stdout.write("ready\n");
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) if (line.trim() === "go") break;
  input.close();
  await sharedLifecycle(new JobQueue(store), prefix, Number(countText));
  await store.close();
}

/** Two children on one file, started together; total jobs per second of wall time. */
async function twoProcesses(dir: string, setting: Setting, jobs: number, round: number): Promise<number> {
  const dbPath = path.join(dir, `two-${setting.journalMode}-${setting.synchronous}-${round}.sqlite`);
  const store = await openStore({ path: dbPath, ...setting }); // create and migrate once, up front
  await store.close();
  const script = fileURLToPath(import.meta.url);
  const prefixes = ["p1", "p2"];
  const children = await startReadyChildren(
    script,
    (i) => ["--child", dbPath, setting.journalMode, setting.synchronous, String(jobs / 2), prefixes[i] ?? `p${i + 1}`],
    prefixes.length,
  );
  const started = process.hrtime.bigint();
  for (const child of children) child.go();
  await Promise.all(children.map((c) => c.exited));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const check = await openStore({ path: dbPath, ...setting });
  const done = (await new JobQueue(check).stats()).byState.done;
  await check.close();
  if (done !== jobs) throw new Error(`expected ${jobs} done jobs, found ${done}`);
  return jobs / seconds;
}

function printTable(title: string, rows: { name: string; runs: number[] }[]): void {
  const medians = rows.map((r) => median(r.runs));
  const best = Math.max(...medians);
  console.log(`\n${title}`);
  console.log("| setting | runs (jobs/s) | median jobs/s | vs best |");
  console.log("|---|---|---:|---:|");
  rows.forEach((r, i) => {
    const runs = r.runs.map((x) => Math.round(x)).join(" / ");
    console.log(`| ${r.name} | ${runs} | ${Math.round(medians[i]!)} | ${(medians[i]! / best).toFixed(2)} |`);
  });
}

function mountOf(dir: string): string {
  try {
    const mounts = fs
      .readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .map((l) => l.split(" "));
    const real = fs.realpathSync(dir);
    const match = mounts
      .filter((m) => m[1] !== undefined && (real === m[1] || real.startsWith(m[1] === "/" ? "/" : `${m[1]}/`)))
      .sort((a, b) => b[1]!.length - a[1]!.length)[0];
    return match === undefined ? "unknown" : `${match[1]} (${match[2]})`;
  } catch {
    return "unknown";
  }
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "--child") return runChild(argv.slice(1));
  const dirFlag = argv.indexOf("--dir");
  const parent = dirFlag >= 0 && argv[dirFlag + 1] !== undefined ? argv[dirFlag + 1]! : os.tmpdir();
  const jobsArg = argv.find((a, i) => /^\d+$/.test(a) && argv[i - 1] !== "--dir");
  const jobs = Math.max(2, Math.floor(Number(jobsArg ?? 2000) / 2) * 2);
  const dir = fs.mkdtempSync(path.join(parent, "verq-journal-bench-"));
  try {
    const probe = await openStore({ path: path.join(dir, "probe.sqlite") });
    // Through the store's own Kysely instance: kysely is a dependency of @verq/store, not of bench.
    const { v: version } = await probe.db
      .selectNoFrom((eb) => eb.fn<string>("sqlite_version", []).as("v"))
      .executeTakeFirstOrThrow();
    await probe.close();
    console.log(`verq journal-mode bench: ${jobs} jobs per run, ${ROUNDS} rounds, median`);
    console.log(`node ${process.version}, SQLite ${version}, ${os.cpus().length} CPUs, dir ${dir} on ${mountOf(dir)}`);

    // Warm-up, untimed: the first run in a process also pays for JIT compilation.
    const warm = await openStore({ path: path.join(dir, "warm-up.sqlite") });
    await lifecycle(new JobQueue(warm), "warm", Math.min(500, jobs));
    await warm.close();

    const single = SETTINGS.map((s) => ({ name: label(s), runs: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < SETTINGS.length; k++) {
        const index = (k + round) % SETTINGS.length; // rotate, so no setting always runs first
        const setting = SETTINGS[index]!;
        const store = await openStore({ path: path.join(dir, `one-${index}-${round}.sqlite`), ...setting });
        const seconds = await lifecycle(new JobQueue(store), "w", jobs);
        await store.close();
        single[index]!.runs.push(jobs / seconds);
      }
    }
    printTable("One process: enqueue → claim → finish ok, 3 transactions per job", single);

    const pairSettings: Setting[] = [SETTINGS[0]!, SETTINGS[2]!, SETTINGS[3]!];
    const pair = pairSettings.map((s) => ({ name: label(s), runs: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < pairSettings.length; k++) {
        const index = (k + round) % pairSettings.length;
        pair[index]!.runs.push(await twoProcesses(dir, pairSettings[index]!, jobs, round));
      }
    }
    printTable("Two processes on one file, N/2 enqueues each, claiming whatever is due (wall time)", pair);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
