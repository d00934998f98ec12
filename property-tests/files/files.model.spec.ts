import { describe, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { storeFactory } from "../store-factory.ts";
import { runFilesModel } from "./run-files-model.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(
    `[${engine}] file ledger against the message machine (SPEC F1-F3, F8)`,
    () => {
      it("every settle and replay writes exactly what decideMessage decides from the same message", async () => {
        await runFilesModel({ name: `files-model [${engine}]`, stores: storeFactory(engine) });
      });
    },
  );
}
