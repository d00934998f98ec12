import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { FileLedger, openStore, type VerqStore } from "@verq/store";
import { createTestDatabase, ENGINES, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileOutcome } from "../../src/files/consume-totals.ts";
import { FileConsumer } from "../../src/files/file-consumer.ts";
import { initQueue, isMessageFileName } from "../../src/files/queue-dirs.ts";
import { queueName } from "../../src/files/queue-name.ts";
import { fcParams } from "../support/fc-params.ts";
import {
  entriesArb,
  fingerprint,
  HOOK_FILE,
  linkTarget,
  makeOutside,
  materialize,
  type CorpusCase,
  type CorpusEntry,
} from "./helpers/corpus-entries.ts";
import { names } from "./helpers/queue-fixture.ts";

const CORPUS = join(import.meta.dirname, "corpus");
const kept = readdirSync(CORPUS)
  .filter((n) => n.endsWith(".json"))
  .sort()
  .map((n) => ({ file: n, ...(JSON.parse(readFileSync(join(CORPUS, n), "utf8")) as CorpusCase) }));

// A real child process that keeps appending to the `grow` files, through renames (it holds them open).
const APPENDER = `const fs=require("node:fs");const fds=process.argv.slice(1).map((p)=>fs.openSync(p,"a"));
process.stdout.write("ready\\n");setInterval(()=>{for(const fd of fds)fs.writeSync(fd," ");},1);`;

async function startAppender(paths: string[]): Promise<ChildProcess | null> {
  if (paths.length === 0) return null;
  const child = spawn(process.execPath, ["-e", APPENDER, ...paths], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", () => resolve());
  });
  return child;
}

async function stop(child: ChildProcess | null): Promise<void> {
  if (child === null || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/**
 * Runs one consumer over the entries in a fresh queue and checks the file-queue invariants:
 * every message file (links too) ends in `done/` or `error/` with a reason, under its queue
 * name, with its bytes (its link text) unchanged; what is not a message name and folders stay in
 * `inbox/`; nothing in `processing/`; nothing skipped; nothing outside the root touched.
 */
async function runCase(ledger: FileLedger, entries: readonly CorpusEntry[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verq-corpus-"));
  try {
    const dirs = initQueue(join(dir, "q"));
    makeOutside(dir);
    const hookText = materialize(dir, dirs.inbox, entries);
    const outside = fingerprint(join(dir, "outside"));
    const vanish = entries.filter((e) => e.kind === "vanish").map((e) => join(dirs.inbox, e.name));
    const growing = entries.filter((e) => e.kind === "grow" && isMessageFileName(e.name)).map((e) => join(dirs.inbox, e.name));
    const outcomes = new Map<string, FileOutcome>();
    const appender = await startAppender(growing);
    let totals;
    try {
      totals = await new FileConsumer({
        root: dirs.root,
        ledger,
        onFile: (o) => outcomes.set(o.file, o),
        handler: (m) => {
          // The vanish files are removed after the listing, before their claim.
          if (m.file === HOOK_FILE) for (const path of vanish) unlinkSync(path);
          return Promise.resolve();
        },
      }).drain();
    } finally {
      await stop(appender);
    }

    expect(totals.skipped).toEqual([]);
    expect(names(dirs.processing)).toEqual([]);
    expect(outcomes.get(HOOK_FILE)?.state).toBe("done");
    const expectedInbox: string[] = [];
    for (const e of entries) {
      const isMessage = isMessageFileName(e.name);
      if (e.kind === "vanish") {
        expect(outcomes.has(e.name)).toBe(false);
        continue;
      }
      if (e.kind === "dir" || !isMessage) {
        expectedInbox.push(e.name);
        continue;
      }
      const o = outcomes.get(queueName(e.name));
      expect(o, `${JSON.stringify(e.name)} was not settled`).toBeDefined();
      if (o === undefined) continue;
      expect(o.placedAs).toBe(queueName(e.name));
      if (o.state === "error") expect(o.reason).not.toBeNull();
      const placed = join(o.state === "done" ? dirs.done : dirs.error, o.placedAs);
      if (e.kind === "file") expect(readFileSync(placed).equals(Buffer.from(e.base64, "base64"))).toBe(true);
      if (e.kind === "link") {
        expect(o).toMatchObject({ state: "error", reason: "parse" });
        expect(readlinkSync(placed)).toBe(linkTarget(dir, dirs.inbox, e.target));
      }
    }
    expect(names(dirs.inbox)).toEqual(expectedInbox.sort());
    const placed = [...outcomes.values()].map((o) => `${o.state}/${o.placedAs}`).sort();
    expect([...names(dirs.done).map((n) => `done/${n}`), ...names(dirs.error).map((n) => `error/${n}`)].sort()).toEqual(placed);
    expect(readFileSync(join(dirs.done, HOOK_FILE), "utf8")).toBe(hookText);
    expect(fingerprint(join(dir, "outside"))).toEqual(outside);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] file queue bad-input corpus`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let ledger: FileLedger;
    beforeAll(async () => {
      database = await createTestDatabase(engine, "corpus.sqlite");
      store = await openStore(database.db);
      ledger = new FileLedger(store);
    });
    afterAll(async () => {
      await store.close();
      await database.dispose();
    });

    for (const c of kept) {
      it(`kept case ${c.file}: ${c.why}`, async () => {
        await runCase(ledger, c.entries);
      });
    }

    it("generated inboxes (fast-check): every file done or error with a reason, none stuck, nothing outside touched", async () => {
      await fc.assert(
        fc.asyncProperty(entriesArb, (entries) => runCase(ledger, entries)),
        fcParams(`files-bad-input-${engine}`, engine === "sqlite" ? 40 : 15, 120_000),
      );
    });
  });
}
