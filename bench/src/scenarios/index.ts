import type { Scenario } from "../scenario.ts";
import { bullmqScenarios } from "./bullmq.ts";
import { cliStartScenarios } from "./cli-start.ts";
import { dashboardScenarios } from "./dashboard-pages.ts";
import { fileScenarios } from "./files.ts";
import { graphileWorkerScenarios } from "./graphile-worker.ts";
import { pgBossScenarios } from "./pg-boss.ts";
import { plainjobScenarios } from "./plainjob.ts";
import { rawSqliteScenarios } from "./raw-sqlite.ts";
import { relayScenarios } from "./relay.ts";
import { schemaReplayScenarios } from "./schema-replay.ts";
import { verqJobScenarios } from "./verq-jobs.ts";
import { verqPostgresGrowthScenarios } from "./verq-postgres-growth.ts";
import { verqPostgresScenarios } from "./verq-postgres.ts";

/** Every scenario of the run, verq first, then the baselines. */
export function allScenarios(): Scenario[] {
  return [
    ...verqJobScenarios(),
    ...verqPostgresScenarios(),
    ...verqPostgresGrowthScenarios(),
    ...relayScenarios(),
    ...fileScenarios(),
    ...cliStartScenarios(),
    ...dashboardScenarios(),
    ...rawSqliteScenarios(),
    ...schemaReplayScenarios(),
    ...plainjobScenarios(),
    ...bullmqScenarios(),
    ...pgBossScenarios(),
    ...graphileWorkerScenarios(),
  ];
}
