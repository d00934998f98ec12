/**
 * The limit of verq's schema for verq's writes, measured beside verq in the same run: verq's own
 * statements for each lifecycle step replayed with raw better-sqlite3 on the schema verq's
 * migrations create (`bench/schema-cost/replay.ts`, which `bench/schema-cost/measure.ts` also
 * runs on variants of the schema). verq's 2a and 2b rows over these say how much of the cost
 * of a lifecycle is verq's code rather than the schema and SQLite's commits.
 */
import { migrateVerqSchema, openReplayDb, replayLifecycles } from "../../schema-cost/replay.ts";
import { freshDb } from "../sqlite-files.ts";
import { perSecond, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

/** The system name of the replay's rows: a baseline, not a verq row (it runs none of verq's code). */
export const SCHEMA_REPLAY = "verq's statements replayed (schema limit)";

async function replayRate(size: BenchSize, batch: number): Promise<Figure> {
  const file = freshDb(size.dir, "verq-replay");
  await migrateVerqSchema(file);
  const db = openReplayDb(file);
  try {
    return perSecond(size.jobs, replayLifecycles(db, size.jobs, batch));
  } finally {
    db.close();
  }
}

export function schemaReplayScenarios(): Scenario[] {
  const how =
    "verq's statements for each step (the archive lookup, events and jobs rows on enqueue; queue limits, candidates, events and the jobs update on claim and on finish), prepared once and run by raw better-sqlite3 with no Kysely and no machine, on a file migrated by verq's own migrations (as a store's first open); WAL, synchronous=NORMAL (as verq)";
  return [
    {
      group: "2a. lifecycle, each step its own commit",
      system: SCHEMA_REPLAY,
      settings: `enqueue, claim, finish: three transactions per job; ${how}`,
      run: async (size) => ({ "jobs/s": await replayRate(size, 1) }),
    },
    {
      group: "2b. lifecycle, 100 jobs per transaction",
      system: SCHEMA_REPLAY,
      settings: `enqueue, claim, finish of 100: three transactions per 100 jobs; ${how}`,
      run: async (size) => ({ "jobs/s": await replayRate(size, 100) }),
    },
  ];
}
