import { describeProperty } from "../property-suite.ts";
import { relayProperty } from "./relay.property.ts";

await describeProperty(relayProperty, {
  describe: "GUID relay under arbitrary interleavings (SPEC G1-G9)",
  it: "G1 G3 G4 G5 G6 G7 G8 G9: the core processes each GUID at most once, and every answer the channel gets agrees with the ledger",
});
