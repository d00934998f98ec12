import { describe, it } from "vitest";
import { runJobsModel } from "./run-jobs-model.ts";

describe("job queue against its reference model (SPEC J1-J6)", () => {
  it("J1-J6: tokens, stale finishes, states, redrive and projections hold under arbitrary interleavings", async () => {
    await runJobsModel({ name: "jobs-model" });
  });
});
