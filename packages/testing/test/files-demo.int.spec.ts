import { join } from "node:path";
import { openStore } from "@verq/store";
import { afterEach, expect, it } from "vitest";
import { runFilesDemo } from "../src/demo/files-demo.ts";
import { tempDir } from "../src/process/verq-process.ts";

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => dir?.remove());

it("F4-F9: the file-queue demo tells the course's story on a real folder and SQLite file", async () => {
  dir = tempDir("verq-files-demo-");
  const store = await openStore({ path: join(dir.path, "ledger.sqlite") });
  const lines: string[] = [];
  try {
    await runFilesDemo(store, join(dir.path, "demo-queue"), (l) => lines.push(l));
  } finally {
    await store.close();
  }
  expect(lines).toEqual([
    "20 files in inbox/: 15 messages of 6 orders, 3 resent by the channel, 1 cut off mid-JSON, 1 without amount",
    "lag 10: inbox=20 processing=0 error=0 -> exit 1, over the threshold",
    "consume: done=18 error=2 duplicates=3; processed rows: 15; processing/ empty: true",
    "dups (stopped by the msg_id primary key): M004 M009 M013",
    "errors: msg-010.json,parse (not valid JSON (at character 62)); msg-015.json,missing-field (missing: amount)",
    "order-check: OK",
    "replay ../x: refused (VERQ_INVALID_ARGUMENT), nothing changed",
    "replay msg-999.json: refused (VERQ_FILE_NOT_FOUND), nothing changed",
    "operator adds the missing amount to error/msg-015.json and replays it: error/ -> inbox/",
    "consume: done=1 error=0 duplicates=0; processed rows: 16",
    "msg-015.json's events: claimed -> rejected -> replayed -> claimed -> recorded",
    "lag 10: inbox=0 processing=0 error=1",
  ]);
});
