import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileLedger, openStore, type VerqStore } from "@verq/store";
import { COURSE_FIXTURE, createTestDatabase, type Engine, type FixtureFile, type TestDatabase } from "@verq/testing";
import { runCli } from "@verq/cli";
import { initQueue, type QueueDirs } from "../../../src/files/queue-dirs.ts";

/** A fresh queue under the OS temp dir and a fresh test database for it; `remove()` deletes both. */
export interface TestQueue {
  readonly dir: string;
  readonly root: string;
  readonly dirs: QueueDirs;
  readonly database: TestDatabase;
  /** What `--db` takes: a SQLite file, or the URL of a PostgreSQL schema of the queue's own. */
  readonly db: string;
  /** Writes files into the inbox (text or raw bytes). */
  write(files: readonly { readonly name: string; readonly text: string | Uint8Array }[]): void;
  remove(): Promise<void>;
}

export async function makeQueue(engine: Engine, prefix = "files"): Promise<TestQueue> {
  const dir = mkdtempSync(join(tmpdir(), `verq-${prefix}-`));
  const root = join(dir, "q");
  const dirs = initQueue(root);
  const database = await createTestDatabase(engine, "ledger.sqlite");
  return {
    dir,
    root,
    dirs,
    database,
    db: database.db,
    write: (files) => {
      for (const f of files) writeFileSync(join(dirs.inbox, f.name), f.text);
    },
    remove: async () => {
      rmSync(dir, { recursive: true, force: true });
      await database.dispose();
    },
  };
}

/** The course's 20 files (SPEC F4), written into the inbox. */
export function writeCourseFixture(queue: TestQueue): void {
  queue.write(COURSE_FIXTURE);
}

/**
 * A bigger inbox: `count` files `m-00001.json`…, each a valid message; every `dupEvery`-th file
 * resends the message of the file before it, every `badEvery`-th file is cut off (`parse`).
 * Orders of 5 messages each, seq 1…5. Returns the files and the figures a run must give.
 */
export function bulkFixture(
  count: number,
  dupEvery = 10,
  badEvery = 25,
): { files: FixtureFile[]; expected: { done: number; error: number; processed: number; duplicates: string[] } } {
  const files: FixtureFile[] = [];
  const duplicates: string[] = [];
  let unique = 0;
  let bad = 0;
  let last = "";
  for (let i = 1; i <= count; i++) {
    const name = `m-${String(i).padStart(5, "0")}.json`;
    if (i % badEvery === 0) {
      files.push({ name, text: '{"msg_id": "X", "order_no": ' });
      bad++;
    } else if (i % dupEvery === 0 && last !== "") {
      files.push({ name, text: last });
      duplicates.push((JSON.parse(last) as { msg_id: string }).msg_id);
    } else {
      const n = unique++;
      last = JSON.stringify({
        msg_id: `K${String(n).padStart(5, "0")}`,
        order_no: `O-${Math.floor(n / 5)}`,
        seq: (n % 5) + 1,
        amount: 100 + n,
      });
      files.push({ name, text: last });
    }
  }
  return { files, expected: { done: count - bad, error: bad, processed: unique, duplicates: [...new Set(duplicates)].sort() } };
}

/** Names in a folder, sorted (everything, not only .json). */
export const names = (dir: string): string[] => readdirSync(dir).sort();

/** Name → sha256 of every file in a folder: proves files arrive whole and unchanged. */
export function digests(dir: string): Map<string, string> {
  return new Map(
    names(dir).map((n) => [
      n,
      createHash("sha256")
        .update(readFileSync(join(dir, n)))
        .digest("hex"),
    ]),
  );
}

/** The whole queue tree: folder → name → sha256. */
export function treeSnapshot(dirs: QueueDirs): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const folder of ["inbox", "processing", "done", "error"] as const) out[folder] = Object.fromEntries(digests(dirs[folder]));
  return out;
}

/** Runs `verq` in this process with captured output. */
export async function verq(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    out: (t) => (out += t.endsWith("\n") ? t : `${t}\n`),
    err: (t) => (err += t.endsWith("\n") ? t : `${t}\n`),
  });
  return { code, out, err };
}

/** Opens the queue's database (a SQLite file or a PostgreSQL URL) for `work`, with a ledger on it. */
export async function withLedger<T>(db: string, work: (ledger: FileLedger, store: VerqStore) => Promise<T>): Promise<T> {
  const store = await openStore(db);
  try {
    return await work(new FileLedger(store), store);
  } finally {
    await store.close();
  }
}

/** What a finished run left: folder counts, the database figures and the claims per file. */
export async function outcome(queue: TestQueue) {
  return withLedger(queue.db, async (ledger, store) => {
    const stats = await ledger.stats();
    const claims = await store.db
      .selectFrom("events")
      .select(["stream_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("stream_type", "=", "message")
      .where("type", "=", "message.claimed")
      .groupBy("stream_id")
      .execute();
    return {
      inbox: names(queue.dirs.inbox).length,
      processing: names(queue.dirs.processing).length,
      done: names(queue.dirs.done).length,
      error: names(queue.dirs.error).length,
      processed: stats.processed,
      duplicates: await ledger.duplicateKeys(),
      duplicateFiles: stats.duplicates,
      streams: stats.byState,
      maxClaimsPerStream: Math.max(0, ...claims.map((c) => Number(c.n))),
    };
  });
}
