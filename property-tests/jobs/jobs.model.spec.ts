import { describeProperty } from "../property-suite.ts";
import { jobsProperty } from "./jobs.property.ts";

await describeProperty(jobsProperty, {
  describe: "job queue against its reference model (SPEC J1-J6)",
  it: "J1-J6: tokens, stale finishes, states, redrive and projections hold under arbitrary interleavings",
});
