/**
 * Child process that holds the SQLite write lock for a while. Usage:
 *
 *   node --import tsx lock-holder.ts <db> <holdMs>
 *
 * Takes `BEGIN IMMEDIATE` on its own connection, prints `locked`, sleeps `holdMs`, commits,
 * prints `released`, then `held <fromMs> <toMs>` (the wall-clock times the lock was taken and
 * let go) and exits 0. Another process's writer meanwhile waits in SQLite's busy handler.
 */
import Database from "better-sqlite3";

const [dbPath, holdText] = process.argv.slice(2);
if (dbPath === undefined) throw new Error("usage: lock-holder.ts <db> <holdMs>");
const db = new Database(dbPath, { timeout: 5_000 });
db.exec("begin immediate");
const from = Date.now();
process.stdout.write("locked\n");
await new Promise((resolve) => setTimeout(resolve, Number(holdText ?? 300)));
const to = Date.now();
db.exec("commit");
db.close();
process.stdout.write(`released\nheld ${from} ${to}\n`);
