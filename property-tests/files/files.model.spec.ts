import { describeProperty } from "../property-suite.ts";
import { filesProperty } from "./files.property.ts";

await describeProperty(filesProperty, {
  describe: "file ledger against the message machine (SPEC F1-F3, F8)",
  it: "every settle and replay writes exactly what decideMessage decides from the same message",
});
