import { describe, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { storeFactory } from "../store-factory.ts";
import { runLedgerModel } from "./run-ledger-model.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] GUID ledger against the guid machine (SPEC G3-G7)`, () => {
    it("every receive, send, record, resolve, reprocess, recover and purge writes exactly what decideGuid decides from the same entry", async () => {
      await runLedgerModel({ name: `ledger-model [${engine}]`, stores: storeFactory(engine) });
    });
  });
}
