import type { Scenario } from "../scenario.ts";
import { bullmqScenarios } from "./bullmq.ts";
import { fileScenarios } from "./files.ts";
import { pgBossScenarios } from "./pg-boss.ts";
import { plainjobScenarios } from "./plainjob.ts";
import { rawSqliteScenarios } from "./raw-sqlite.ts";
import { relayScenarios } from "./relay.ts";
import { verqJobScenarios } from "./verq-jobs.ts";

/** Every scenario of the run, verq first, then the baselines. */
export function allScenarios(): Scenario[] {
  return [
    ...verqJobScenarios(),
    ...relayScenarios(),
    ...fileScenarios(),
    ...rawSqliteScenarios(),
    ...plainjobScenarios(),
    ...bullmqScenarios(),
    ...pgBossScenarios(),
  ];
}
