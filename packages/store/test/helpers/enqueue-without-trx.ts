/**
 * Child process that makes the mistake the store must catch: inside `store.transaction(work)` it
 * enqueues without passing `{ trx }`. Usage:
 *
 *   node --import tsx enqueue-without-trx.ts <db>
 *
 * Prints `caught <code>: <message>` and exits 0 once the transaction fails. A store that let
 * the enqueue wait for the connection the transaction holds would never settle the top-level
 * await: Node then exits 13 and this prints nothing.
 */
import { isVerqError } from "@verq/core";
import { JobQueue, openStore } from "@verq/store";

const [dbPath] = process.argv.slice(2);
if (dbPath === undefined) throw new Error("usage: enqueue-without-trx.ts <db>");

const store = await openStore({ path: dbPath, busyTimeoutMs: 300 });
const queue = new JobQueue(store);
try {
  await store.transaction(async () => {
    await queue.enqueue({ id: "charge-1", payload: { amount: 5 } });
  });
  process.stdout.write("committed\n");
} catch (error) {
  process.stdout.write(`caught ${isVerqError(error) ? error.code : "a non-verq error"}: ${(error as Error).message}\n`);
} finally {
  await store.close();
}
