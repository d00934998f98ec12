import { describe, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { storeFactory } from "../store-factory.ts";
import { runSchedulesModel } from "./run-schedules-model.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] schedules against their model`, () => {
    it(
      "a slot is enqueued at most once however many schedulers run, and only the latest missed slot is",
      { timeout: 120_000 },
      async () => {
        await runSchedulesModel({ name: `schedules-model [${engine}]`, stores: storeFactory(engine) });
      },
    );
  });
}
