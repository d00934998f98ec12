import { describeProperty } from "../property-suite.ts";
import { ledgerProperty } from "./ledger.property.ts";

await describeProperty(ledgerProperty, {
  describe: "GUID ledger against the guid machine (SPEC G3-G7)",
  it: "every receive, send, record, resolve, reprocess, recover and purge writes exactly what decideGuid decides from the same entry",
});
