/**
 * One pg-boss process of the multi-process rows: starts pg-boss (its pool, its maintenance) and
 * says "ready", works the queue from "go" with the bench's worker (`pg-boss-worker.ts`) until
 * SIGTERM, then stops pg-boss gracefully (closing its pool) and reports.
 *
 *   tsx pg-boss-child.ts <url> <schema> <queue> <poolSize>
 */
import PgBoss from "pg-boss";
import { startWorker } from "./pg-boss-worker.ts";
import { readyThenGo, reportUntilStopped } from "./until-stopped-child.ts";

const [url, schema, name, poolSize] = process.argv.slice(2);
if (url === undefined || schema === undefined || name === undefined)
  throw new Error("usage: pg-boss-child.ts <url> <schema> <queue> <poolSize>");
const boss = new PgBoss({ connectionString: url, schema, max: Number(poolSize ?? 10) });
boss.on("error", (error) => process.stderr.write(`[pg-boss] ${error.message}\n`));
await boss.start();
let handled = 0;
reportUntilStopped(
  () => handled,
  () => boss.stop({ graceful: true, close: true, wait: true }),
);
await readyThenGo();
await startWorker(boss, name, () => void handled++);
