/**
 * Child process that opens a store, as a fresh process starting up would. Usage:
 *
 *   node --import tsx open-store-once.ts <db> [wal|delete]
 *
 * Prints `ready` once loaded, reads `go <startAtMs>` from stdin, spins until the wall clock
 * reaches it (so several children open within a fraction of a millisecond of each other),
 * opens the store (creating and migrating the file if needed), closes it, and prints `ok`, or
 * `error <code> <message> <where>` and exits 1.
 */
import readline from "node:readline";
import { openStore } from "@verq/store";

const [dbPath, journalText] = process.argv.slice(2);
if (dbPath === undefined) throw new Error("usage: open-store-once.ts <db> [wal|delete]");

process.stdout.write("ready\n");
let startAt = 0;
const input = readline.createInterface({ input: process.stdin });
for await (const line of input) {
  const match = /^go (\d+)$/.exec(line.trim());
  if (match !== null) {
    startAt = Number(match[1]);
    break;
  }
}
input.close();
while (Date.now() < startAt) {
  // Busy-wait: a timer would add up to a millisecond of skew between the children.
}
try {
  const store = await openStore({ path: dbPath, journalMode: journalText === "delete" ? "delete" : "wal" });
  await store.close();
  process.stdout.write("ok\n");
} catch (error) {
  const { code, message, stack } = error as { code?: unknown; message?: unknown; stack?: unknown };
  const where =
    typeof stack === "string"
      ? stack
          .split("\n")
          .slice(1, 4)
          .map((l) => l.trim())
          .join(" < ")
      : "";
  process.stdout.write(`error ${String(code)} ${String(message)} ${where}\n`);
  process.exitCode = 1;
}
