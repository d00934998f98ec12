import { describe, it } from "vitest";
import { runLedgerModel } from "./run-ledger-model.ts";

describe("GUID ledger against the guid machine (SPEC G3-G7)", () => {
  it("every receive, send, record, resolve, reprocess, recover and purge writes exactly what decideGuid decides from the same entry", async () => {
    await runLedgerModel({ name: "ledger-model" });
  });
});
