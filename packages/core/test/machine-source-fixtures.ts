import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERQ_MACHINES, machineGraph, machineSource, type VerqMachineName } from "../src/index.ts";

/** The names of verq's machines, in {@link VERQ_MACHINES} order. */
export const MACHINE_NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

/**
 * Writes each machine's {@link machineSource} module to a fresh directory outside the workspace,
 * as a user's would be; their `xstate` import resolves through a link to this package's
 * node_modules. Returns the directory, the files in {@link MACHINE_NAMES} order and a cleanup.
 */
export function writeMachineModules(): { dir: string; files: string[]; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "verq-machine-source-"));
  symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir");
  const files = MACHINE_NAMES.map((name) => {
    const file = join(dir, `${name}.machine.ts`);
    writeFileSync(file, machineSource(machineGraph(VERQ_MACHINES[name])));
    return file;
  });
  return { dir, files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
