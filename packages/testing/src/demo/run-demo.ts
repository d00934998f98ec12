import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { openStore } from "@verq/store";
import { runFilesDemo } from "./files-demo.ts";
import { runJobsDemo } from "./jobs-demo.ts";
import { runRelayDemo } from "./relay-demo.ts";

// `pnpm demo` from the repository root: the file lands in ./.verq/ of the working directory.
const dir = resolve(".verq");
mkdirSync(dir, { recursive: true });
const path = join(dir, "demo.sqlite");
for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });

const store = await openStore({ path });
try {
  console.log(`verq demo on a fresh SQLite file: ${path}`);
  console.log("-- jobs: leases, fencing tokens, retry budget, dead letters, redrive (SPEC J3-J8)");
  await runJobsDemo(store, (line) => console.log(line));
  console.log("-- relay: an idempotency ledger in front of a core that debits twice (SPEC G1-G9)");
  await runRelayDemo(store, (line) => console.log(line));
  const filesRoot = join(dir, "files-demo");
  rmSync(filesRoot, { recursive: true, force: true });
  console.log(`-- file queue in ${filesRoot}: inbox/processing/done/error (SPEC F1-F9)`);
  await runFilesDemo(store, filesRoot, (line) => console.log(line));
} finally {
  await store.close();
}
