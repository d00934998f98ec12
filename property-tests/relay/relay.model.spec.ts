import { describe, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { storeFactory } from "../store-factory.ts";
import { runRelayModel } from "./run-relay-model.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] GUID relay under arbitrary interleavings (SPEC G1-G9)`, () => {
    it("G1 G3 G4 G5 G6 G7 G8 G9: the core processes each GUID at most once, and every answer the channel gets agrees with the ledger", async () => {
      await runRelayModel({ name: `relay-model [${engine}]`, stores: storeFactory(engine, { oneConnection: true }) });
    });
  });
}
