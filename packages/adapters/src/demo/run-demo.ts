import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@verq/store";
import { runJobsDemo } from "./jobs-demo.ts";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const dir = join(repoRoot, ".verq");
mkdirSync(dir, { recursive: true });
const path = join(dir, "demo.sqlite");
for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });

const store = await openStore({ path });
try {
  console.log(`verq demo on a fresh SQLite file: ${path}`);
  console.log("-- jobs: leases, fencing tokens, retry budget, dead letters, redrive (SPEC J3-J8)");
  await runJobsDemo(store, (line) => console.log(line));
} finally {
  await store.close();
}
