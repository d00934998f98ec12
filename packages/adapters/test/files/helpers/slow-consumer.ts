/**
 * A consumer whose handler takes `delayMs` per message, for crash tests: it prints
 * `settled <n>` after every file, so a test can SIGKILL it at a known point mid-run.
 *
 *   node --import tsx slow-consumer.ts <root> <db> <delayMs>
 *
 * `db` is a SQLite file or a PostgreSQL URL.
 */
import { FileLedger, openStore } from "@verq/store";
import { FileConsumer } from "../../../src/files/file-consumer.ts";

const [root, db, delay] = process.argv.slice(2);
if (root === undefined || db === undefined) throw new Error("usage: slow-consumer.ts <root> <db> <delayMs>");
const delayMs = Number(delay ?? 5);
const store = await openStore(db);
let settled = 0;
const consumer = new FileConsumer({
  root,
  ledger: new FileLedger(store),
  handler: () => new Promise((resolve) => setTimeout(resolve, delayMs)),
  onFile: () => process.stdout.write(`settled ${++settled}\n`),
});
const totals = await consumer.drain();
process.stdout.write(`${JSON.stringify(totals)}\n`);
await store.close();
