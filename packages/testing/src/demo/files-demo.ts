import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isVerqError } from "@verq/core";
import { FileLedger, type VerqStore } from "@verq/store";
import { COURSE_FIXTURE, writeFixture } from "../files/course-fixture.ts";
import { FileConsumer, formatLag, initQueue, listErrors, measureLag, replayFile, type ConsumeTotals } from "@verq/adapters/files";

const describe = (t: ConsumeTotals) => `done=${t.done} error=${t.error} duplicates=${t.duplicates}`;

/**
 * The story of SPEC F1–F9 on a real folder and a real SQLite file: the course's 20 files
 * consumed (18 done, 2 quarantined with their reasons, 15 rows, 3 duplicates stopped by the
 * primary key), the order check, the lag line, a replay that tries to leave `error/` refused,
 * and a business error completed by an operator and replayed to `done/`. `root` must be an
 * empty or missing folder; the queue is created in it.
 */
export async function runFilesDemo(store: VerqStore, root: string, print: (line: string) => void): Promise<void> {
  const dirs = initQueue(root);
  const ledger = new FileLedger(store);
  writeFixture(dirs.inbox);
  print(
    `${COURSE_FIXTURE.length} files in inbox/: 15 messages of 6 orders, 3 resent by the channel, 1 cut off mid-JSON, 1 without amount`,
  );
  const before = measureLag(root);
  print(`lag 10: ${formatLag(before)} -> ${before.inbox > 10 ? "exit 1, over the threshold" : "exit 0"}`);

  const first = await new FileConsumer({ root, ledger }).drain();
  const stats = await ledger.stats();
  print(
    `consume: ${describe(first)}; processed rows: ${stats.processed}; processing/ empty: ${measureLag(root).processing === 0}`,
  );
  print(`dups (stopped by the msg_id primary key): ${(await ledger.duplicateKeys()).join(" ")}`);
  const errors = await listErrors(root, ledger);
  print(`errors: ${errors.map((e) => `${e.file},${e.reason} (${e.detail ?? ""})`).join("; ")}`);
  const order = await ledger.checkOrder();
  print(`order-check: ${order.problems.length === 0 ? "OK" : `${order.problems.length} problems`}`);

  try {
    replayFile(root, "../x");
  } catch (error) {
    print(`replay ../x: refused (${isVerqError(error) ? error.code : "error"}), nothing changed`);
  }
  try {
    replayFile(root, "msg-999.json");
  } catch (error) {
    print(`replay msg-999.json: refused (${isVerqError(error) ? error.code : "error"}), nothing changed`);
  }

  // A business error can be completed and re-injected; a format error needs a fix at the source.
  writeFileSync(
    join(dirs.error, "msg-015.json"),
    JSON.stringify({ msg_id: "M018", order_no: "O-1008", seq: 1, amount: 300, currency: "JPY", sent_at: "2026-01-05T09:15:00Z" }),
  );
  replayFile(root, "msg-015.json");
  await ledger.replay("msg-015.json");
  print("operator adds the missing amount to error/msg-015.json and replays it: error/ -> inbox/");
  const second = await new FileConsumer({ root, ledger }).drain();
  print(`consume: ${describe(second)}; processed rows: ${(await ledger.stats()).processed}`);
  const message = (await ledger.processed()).find((r) => r.msg_id === "M018");
  const history = message === undefined ? [] : await ledger.history(message.message_id);
  print(`msg-015.json's events: ${history.map((e) => e.type.replace("message.", "")).join(" -> ")}`);
  print(`lag 10: ${formatLag(measureLag(root))}`);
}
