/**
 * The job figures of one checkout against another's, each in a process of its own on a fresh
 * file, the two interleaved round by round: how the A/B comparisons in docs/performance.md (a commit
 * against the one before the command path) were made. `--tree` names the other checkout (its
 * dependencies installed); each process prints one line, and the summary gives the median, min
 * and max jobs/s of each.
 *
 *   npx -y pnpm@10 --filter @verq/bench lifecycle --mode bulk --jobs 30000 --rounds 5 --tree /path/to/other/checkout
 *
 * Modes: `bulk` (enqueueMany of 1,000), `one` (enqueue one at a time), `life` (enqueue, claim,
 * finish: a transaction each), `batch` (100 jobs per enqueueMany, claimMany and finishMany).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type * as Store from "@verq/store";

const { values: args } = parseArgs({
  options: {
    mode: { type: "string", default: "bulk" },
    jobs: { type: "string", default: "30000" },
    rounds: { type: "string", default: "3" },
    tree: { type: "string", multiple: true, default: [] },
    child: { type: "boolean", default: false },
  },
});
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

if (args.child) {
  const tree = args.tree[0] ?? here;
  const { JobQueue, openStore } = (await import(
    pathToFileURL(path.join(tree, "packages/store/src/index.ts")).href
  )) as typeof Store;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verq-lifecycle-"));
  const store = await openStore({ path: path.join(dir, "jobs.sqlite") });
  const queue = new JobQueue(store);
  const n = Number(args.jobs);
  const id = (i: number) => `job-${String(i).padStart(8, "0")}`;
  const start = performance.now();
  if (args.mode === "bulk") {
    for (let d = 0; d < n; d += 1_000)
      await queue.enqueueMany(Array.from({ length: 1_000 }, (_, i) => ({ id: id(d + i), payload: { quantity: d + i } })));
  } else if (args.mode === "one") {
    for (let i = 0; i < n; i++) await queue.enqueue({ id: id(i), payload: { quantity: i } });
  } else if (args.mode === "life") {
    for (let i = 0; i < n; i++) {
      await queue.enqueue({ id: id(i), payload: { quantity: i } });
      const job = await queue.claim("w");
      if (job === null || !(await queue.finish(job.id, job.token, "ok"))) throw new Error("the lifecycle broke");
    }
  } else if (args.mode === "batch") {
    for (let d = 0; d < n; d += 100) {
      await queue.enqueueMany(Array.from({ length: 100 }, (_, i) => ({ id: id(d + i), payload: { quantity: d + i } })));
      const jobs = await queue.claimMany("w", 100);
      await queue.finishMany(jobs.map((j) => ({ id: j.id, token: j.token, outcome: "ok" as const })));
    }
  } else throw new Error(`unknown mode ${args.mode}`);
  const rate = n / ((performance.now() - start) / 1000);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(Math.round(rate));
} else {
  const trees = [here, ...args.tree.map((t) => path.resolve(t))];
  const results = new Map<string, number[]>(trees.map((t) => [t, []]));
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const tree of trees) {
      const out = execFileSync(
        process.execPath,
        [
          "--conditions=verq-source",
          "--import",
          "tsx",
          fileURLToPath(import.meta.url),
          "--child",
          "--mode",
          String(args.mode),
          "--jobs",
          String(args.jobs),
          "--tree",
          tree,
        ],
        { cwd: tree, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
      );
      results.get(tree)?.push(Number(out.trim().split("\n").at(-1)));
    }
  }
  console.log(`${args.mode}, ${args.jobs} jobs, ${args.rounds} rounds interleaved: jobs/s median [min–max]`);
  for (const [tree, rates] of results) {
    const sorted = [...rates].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    console.log(
      `${tree}: ${median.toLocaleString("en")} [${(sorted[0] ?? 0).toLocaleString("en")}–${(sorted.at(-1) ?? 0).toLocaleString("en")}]`,
    );
  }
}
