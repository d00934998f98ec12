import { describe, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { storeFactory } from "../store-factory.ts";
import { runJobsModel } from "./run-jobs-model.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] job queue against its reference model (SPEC J1-J6)`, () => {
    it("J1-J6: tokens, stale finishes, states, redrive and projections hold under arbitrary interleavings", async () => {
      await runJobsModel({ name: `jobs-model [${engine}]`, stores: storeFactory(engine) });
    });
  });
}
