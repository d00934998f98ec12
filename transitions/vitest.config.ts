import { fileURLToPath } from "node:url";
import { mergeConfig } from "vitest/config";
import base from "../vitest.config.ts";

// The repository's own test configuration, plus the setup file that records the transitions
// every test takes: what a transition coverage run starts its test processes with.
export default mergeConfig(base, {
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: { setupFiles: [fileURLToPath(new URL("./src/record-setup.ts", import.meta.url))] },
});
