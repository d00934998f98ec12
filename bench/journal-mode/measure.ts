/**
 * Chooses the default journal mode by measurement (SPEC J9). For each setting, the full job
 * lifecycle (enqueue → claim → finish ok, each its own committed transaction) on a real file,
 * run interleaved three times; prints the median rate and its ratio to the best setting.
 *
 * Run: npx tsx bench/journal-mode/measure.ts [jobs=2000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobQueue, openStore } from "@verq/store";

const jobs = Number(process.argv[2] ?? 2_000);
const settings = [
  { journalMode: "wal", synchronous: "normal" },
  { journalMode: "wal", synchronous: "full" },
  { journalMode: "delete", synchronous: "normal" },
  { journalMode: "delete", synchronous: "full" },
] as const;

async function lifecyclesPerSecond(setting: (typeof settings)[number]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "verq-journal-"));
  const store = await openStore({ path: join(dir, "q.sqlite"), ...setting });
  try {
    const queue = new JobQueue(store);
    const started = performance.now();
    for (let i = 0; i < jobs; i++) {
      await queue.enqueue({ id: `j${i}`, payload: { quantity: 1 } });
      const job = await queue.claim("w");
      if (job === null) throw new Error("nothing claimed");
      await queue.finish(job.id, job.token, "ok");
    }
    return jobs / ((performance.now() - started) / 1000);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples = new Map<string, number[]>();
for (let round = 0; round < 3; round++) {
  for (const setting of settings) {
    const key = `${setting.journalMode}+${setting.synchronous}`;
    samples.set(key, [...(samples.get(key) ?? []), await lifecyclesPerSecond(setting)]);
  }
}
const medians = [...samples].map(([key, values]) => [key, [...values].sort((a, b) => a - b)[1] ?? 0] as const);
const best = Math.max(...medians.map(([, v]) => v));
console.log(`journal mode, ${jobs} job lifecycles (3 commits each), median of 3 interleaved runs`);
console.log("| setting | lifecycles/s | ratio to best |\n|---|---|---|");
for (const [key, value] of medians) console.log(`| ${key} | ${Math.round(value)} | ${(value / best).toFixed(2)} |`);
