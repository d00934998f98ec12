import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isVerqError } from "@verq/core";
import { JobQueue, checkStore, openStore, type SqliteStoreOptions } from "@verq/store";
import { runVerq } from "@verq/testing";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLITE_PAGE as PAGE, overwrite } from "./helpers/overwrite.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

let tmp: TempDir;
/** A whole store: 2,000 jobs, half of them claimed, checkpointed into one file with no log beside it. */
let base: string;

beforeAll(async () => {
  tmp = makeTempDir("corrupt");
  base = tmp.file("base.sqlite");
  const store = await openStore({ path: base });
  const queue = new JobQueue(store);
  await queue.enqueueMany(Array.from({ length: 2_000 }, (_, i) => ({ id: `job-${i}`, payload: { text: "x".repeat(200) } })));
  await queue.claimMany("worker", 1_000, { leaseMs: 600_000 });
  await store.checkpoint();
  await store.close();
});
afterAll(() => tmp.remove());

/** Every file of `dir` with a hash of its bytes: equal before and after means nothing was written, created or removed. */
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    files[name] = createHash("sha256")
      .update(fs.readFileSync(path.join(dir, name)))
      .digest("hex");
  }
  return files;
}

/** A copy of the whole store in a folder of its own, damaged by `damage`; returns the database path. */
function damaged(name: string, damage: (file: string) => void): string {
  const dir = path.join(tmp.path, name);
  fs.mkdirSync(dir);
  const file = path.join(dir, "verq.sqlite");
  fs.copyFileSync(base, file);
  damage(file);
  return file;
}

/** openStore must refuse `file` with VERQ_STORE_CORRUPT naming it, and leave its folder byte for byte as it was. */
async function expectRefused(file: string, why: RegExp, options: Partial<SqliteStoreOptions> = {}): Promise<void> {
  const before = filesOf(path.dirname(file));
  const error = await openStore({ path: file, ...options }).then(
    async (store) => {
      await store.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(isVerqError(error, "VERQ_STORE_CORRUPT"), `${path.basename(path.dirname(file))}: ${String(error)}`).toBe(true);
  expect((error as Error).message).toContain(file);
  expect((error as Error).message).toMatch(why);
  expect(filesOf(path.dirname(file))).toEqual(before);
}

describe("SQLite: a damaged database file is refused, never made new nor migrated over", () => {
  it("truncated (to half, or mid-page), header overwritten, empty, not SQLite at all, a -wal without its file: VERQ_STORE_CORRUPT at open, every file untouched", async () => {
    const size = fs.statSync(base).size;
    const cases: [string, RegExp][] = [
      [damaged("half", (f) => fs.truncateSync(f, Math.floor(size / 2 / PAGE) * PAGE)), /truncated/],
      [damaged("mid-page", (f) => fs.truncateSync(f, Math.floor(size / 2) + 123)), /truncated/],
      [damaged("header", (f) => overwrite(f, 0, randomBytes(100))), /not a SQLite database/],
      [damaged("page-size", (f) => overwrite(f, 16, Buffer.from([0x03, 0x00]))), /page size/],
      [damaged("empty", (f) => fs.truncateSync(f, 0)), /an empty file/],
      [damaged("csv", (f) => fs.writeFileSync(f, "id,amount\n" + "a,1\n".repeat(5_000))), /not a SQLite database/],
    ];
    // A -wal with committed frames whose database was deleted or moved without it: SQLite would
    // start a new file and drop the log.
    const orphan = damaged("wal-alone", (f) => fs.rmSync(f));
    const writer = new Database(tmp.file("writer.sqlite"));
    writer.pragma("journal_mode = wal");
    writer.exec("create table t (x text); insert into t values ('committed')");
    fs.copyFileSync(tmp.file("writer.sqlite-wal"), `${orphan}-wal`);
    writer.close();
    expect(fs.statSync(`${orphan}-wal`).size).toBeGreaterThan(0);
    cases.push([orphan, /wal file .* is there without it/]);
    // One after the other: an empty file is refused only once it stayed empty for the grace period.
    for (const [file, why] of cases) await expectRefused(file, why);
  });

  it("pages overwritten in the middle: refused at open with quickCheck; without it, the first read that meets them is VERQ_STORE_CORRUPT and the store then refuses every write", async () => {
    const pages = fs.statSync(base).size / PAGE;
    const middle = damaged("middle", (f) => {
      for (let page = Math.floor(pages * 0.4); page < Math.floor(pages * 0.6); page += 3)
        overwrite(f, page * PAGE, randomBytes(PAGE));
    });
    await expectRefused(middle, /quick_check|malformed/, { quickCheck: true });

    // Without quickCheck the open reads only the header and the schema, which are whole.
    const before = filesOf(path.dirname(middle));
    const store = await openStore({ path: middle });
    try {
      const report = await checkStore(store).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isVerqError(report, "VERQ_STORE_CORRUPT"), String(report)).toBe(true);
      expect((report as Error).message).toMatch(/damaged \(database disk image is malformed\)/);
      // Damage found once is final: a write that would not touch the damaged pages is refused too.
      await expect(new JobQueue(store).enqueue({ id: "after-damage", payload: {} })).rejects.toMatchObject({
        code: "VERQ_STORE_CORRUPT",
      });
      await expect(new JobQueue(store).claim("worker")).rejects.toMatchObject({ code: "VERQ_STORE_CORRUPT" });
    } finally {
      await store.close();
    }
    expect(filesOf(path.dirname(middle))).toEqual(before);
  });

  it("the CLI: verq jobs stats and jobs show on a damaged file exit 1 with one line naming VERQ_STORE_CORRUPT and the file, and change nothing", async () => {
    const notSqlite = damaged("cli-csv", (f) => fs.writeFileSync(f, "id,amount\n" + "a,1\n".repeat(100)));
    const truncated = damaged("cli-truncated", (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 3)));
    const before = [filesOf(path.dirname(notSqlite)), filesOf(path.dirname(truncated))];
    const [stats, show, json] = await Promise.all([
      runVerq(["jobs", "stats", "--db", notSqlite]),
      runVerq(["jobs", "show", "job-1", "--db", truncated]),
      runVerq(["jobs", "stats", "--db", truncated, "--json"]),
    ]);
    for (const [run, file] of [
      [stats, notSqlite],
      [show, truncated],
    ] as const) {
      expect([run.status, run.stdout]).toEqual([1, ""]);
      expect(run.stderr).toMatch(/^verq: VERQ_STORE_CORRUPT: the database file [^\n]+ is damaged \([^\n]+\n$/);
      expect(run.stderr).toContain(file);
    }
    expect([json.status, json.stderr]).toEqual([1, ""]);
    const parsed = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(Object.keys(parsed)).toEqual(["error"]);
    expect(parsed.error.code).toBe("VERQ_STORE_CORRUPT");
    expect(parsed.error.message).toContain("truncated");
    expect([filesOf(path.dirname(notSqlite)), filesOf(path.dirname(truncated))]).toEqual(before);
  });
});
