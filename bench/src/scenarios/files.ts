/**
 * Group 5: how fast one file consumer drains an inbox. `size.files` valid messages of the
 * course's profile (msg_id, order_no, seq, amount; orders of five) are written into a fresh
 * queue before the clock starts; the figure is the time for one consumer's drain to take every
 * file through claim (rename into processing/), read and validation, a hard link into done/,
 * one SQLite transaction (claim, processed row, events) and the unlink from processing/.
 * The outcome is checked afterwards, folders and database, and a run that did not end with
 * every file done gives no figure.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileLedger, openStore } from "@verq/store";
import { FileConsumer, initQueue, type QueueDirs } from "@verq/adapters/files";
import { perSecond, since, type BenchSize, type Scenario } from "../scenario.ts";

const GROUP = "5. file consumer";

/** Writes `count` valid, distinct messages into the inbox: `m-000001.json` …, five per order, seq 1…5. */
function writeInbox(dirs: QueueDirs, count: number): void {
  for (let i = 0; i < count; i++) {
    const text = JSON.stringify({
      msg_id: `K${String(i).padStart(7, "0")}`,
      order_no: `O-${Math.floor(i / 5)}`,
      seq: (i % 5) + 1,
      amount: 100 + i,
    });
    writeFileSync(join(dirs.inbox, `m-${String(i + 1).padStart(6, "0")}.json`), text);
  }
}

const count = (dir: string): number => readdirSync(dir).length;

/** One consumer draining `size.files` valid files. */
export function fileScenarios(): Scenario[] {
  return [
    {
      group: GROUP,
      system: "verq",
      settings:
        "one consumer, drain of an inbox of valid JSON messages; per file: rename inbox/ → processing/ (claim), read + validate, " +
        "hard link into done/, one SQLite transaction (WAL, synchronous=NORMAL), unlink from processing/; no handler, no fsync of the folders",
      async run(size: BenchSize) {
        const n = size.files;
        const dir = mkdtempSync(join(size.dir, "files-"));
        try {
          const dirs = initQueue(join(dir, "queue"));
          writeInbox(dirs, n);
          const store = await openStore({ path: join(dir, "ledger.sqlite"), journalMode: "wal", synchronous: "normal" });
          try {
            const ledger = new FileLedger(store);
            const consumer = new FileConsumer({ root: dirs.root, ledger });
            const start = performance.now();
            const totals = await consumer.drain();
            const ms = since(start);

            const problems: string[] = [];
            if (totals.done !== n || totals.recorded !== n) problems.push(`done ${totals.done}, recorded ${totals.recorded}`);
            if (totals.error !== 0 || totals.duplicates !== 0 || totals.recovered !== 0) {
              problems.push(`error ${totals.error}, duplicates ${totals.duplicates}, recovered ${totals.recovered}`);
            }
            if (totals.skipped.length > 0)
              problems.push(`skipped ${totals.skipped.length} (first: ${totals.skipped[0]?.code ?? ""})`);
            const folders = {
              inbox: count(dirs.inbox),
              processing: count(dirs.processing),
              done: count(dirs.done),
              error: count(dirs.error),
            };
            if (folders.inbox !== 0 || folders.processing !== 0 || folders.done !== n || folders.error !== 0)
              problems.push(`folders ${JSON.stringify(folders)}`);
            const stats = await ledger.stats();
            if (stats.processed !== n || stats.byState.done !== n || stats.byState.error !== 0 || stats.duplicates !== 0) {
              problems.push(
                `database: processed ${stats.processed}, ${JSON.stringify(stats.byState)}, duplicates ${stats.duplicates}`,
              );
            }
            if (problems.length > 0)
              throw new Error(`the file consumer did not end with all ${n} files done: ${problems.join("; ")}`);
            return { "files/s": perSecond(n, ms, "files/s") };
          } finally {
            await store.close();
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    },
  ];
}
