/**
 * One graphile-worker process of the multi-process rows: opens its pool and says "ready", runs
 * a runner from "go" with the bench's settings (`graphileRunnerOptions`) and a no-op task until
 * SIGTERM, then stops it gracefully (flushing its batched completions) and reports, with what
 * the run cost from "go" to SIGTERM (`postgres-cost.ts`).
 *
 *   tsx graphile-worker-child.ts <url> <schema> <concurrency> <localQueueSize> <poolSize>
 */
import { run, type Runner } from "graphile-worker";
import { graphileRunnerOptions, openGraphilePool, TASK } from "./graphile-worker-options.ts";
import { meterPostgres, type PostgresCost } from "./postgres-cost.ts";
import { readyThenGo, reportUntilStopped } from "./until-stopped-child.ts";

const [url, schema, concurrency, localQueueSize, poolSize] = process.argv.slice(2);
if (url === undefined || schema === undefined)
  throw new Error("usage: graphile-worker-child.ts <url> <schema> <concurrency> <localQueueSize> <poolSize>");
const pool = await openGraphilePool(url, Number(poolSize ?? 10));
let handled = 0;
const started: { runner?: Runner; stopMeter?: () => PostgresCost } = {};
reportUntilStopped(
  () => handled,
  async () => {
    await started.runner?.stop();
    await pool.end();
  },
  () => (started.stopMeter === undefined ? {} : { cost: started.stopMeter() }),
);
await readyThenGo();
started.stopMeter = meterPostgres();
started.runner = await run(
  graphileRunnerOptions(
    { pool, schema, concurrency: Number(concurrency ?? 8), localQueueSize: Number(localQueueSize ?? 9) },
    { [TASK]: () => void handled++ },
  ),
);
