import { describe, it } from "vitest";
import { runFilesModel } from "./run-files-model.ts";

describe("file ledger against the message machine (SPEC F1-F3, F8)", () => {
  it("every settle and replay writes exactly what decideMessage decides from the same message", async () => {
    await runFilesModel({ name: "files-model" });
  });
});
