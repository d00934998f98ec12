import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { VERQ_MACHINES, VerqMachineName } from "@verq/core";

/** A machine as @verq/core types its own (this package does not depend on xstate itself). */
export type AnyMachine = (typeof VERQ_MACHINES)[VerqMachineName];

/** XState's `createMachine`, loaded from where @verq/core finds it. */
export async function loadCreateMachine(): Promise<(config: object) => AnyMachine> {
  const fromCore = createRequire(new URL("../../../core/package.json", import.meta.url));
  const xstate = (await import(pathToFileURL(fromCore.resolve("xstate")).href)) as {
    createMachine: (config: object) => AnyMachine;
  };
  return xstate.createMachine;
}
