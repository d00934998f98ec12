import { describeProperty } from "../property-suite.ts";
import { schedulesProperty } from "./schedules.property.ts";

await describeProperty(schedulesProperty, {
  describe: "schedules against their model",
  it: "a slot is enqueued at most once however many schedulers run, and only the latest missed slot is",
});
