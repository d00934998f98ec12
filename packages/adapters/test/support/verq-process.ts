// The process helpers moved to @verq/testing; this path re-exports them for the tests that
// still import it from here.
export { runVerq, spawnVerq, startReceiver, tempDir, type RunningReceiver, type VerqRun } from "@verq/testing";
