import { accessSync, constants, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  VERQ_MACHINES,
  VERQ_MACHINE_NAMES,
  VerqError,
  machineGraph,
  machineJson,
  machineMermaid,
  machineSource,
  type VerqMachineName,
} from "@verq/core";

/** What a machine is written as: its `toJSON()`, its Mermaid diagram, its visualizer module. */
export type MachineFileKind = "json" | "mermaid" | "source";

/** One file `writeMachineFiles` wrote. */
export interface MachineFile {
  readonly machine: VerqMachineName;
  readonly kind: MachineFileKind;
  /** Absolute path. */
  readonly path: string;
}

/** The file names of a machine in the `--out` folder, by kind. */
export const MACHINE_FILE_NAMES: Readonly<Record<MachineFileKind, (machine: string) => string>> = {
  json: (machine) => `${machine}.json`,
  mermaid: (machine) => `${machine}.mmd`,
  source: (machine) => `${machine}.machine.ts`,
};

/**
 * Creates `dir` (and its parents) when it does not exist. A path that is not a folder, cannot
 * be created or cannot be written to is `VERQ_INVALID_ARGUMENT`, before any file is written.
 */
export function prepareOutDir(dir: string): string {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true });
    if (!statSync(path).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new VerqError("VERQ_INVALID_ARGUMENT", `--out ${path} is not a folder that can be created and written to (${code})`, {
      cause: error,
    });
  }
  return path;
}

/**
 * Writes, for each machine that decides a stream type (`VERQ_MACHINE_NAMES`, derived from
 * core's `STREAM_MACHINES`), `<name>.json` (its {@link machineJson}), `<name>.mmd`
 * (its {@link machineMermaid} diagram) and `<name>.machine.ts` (its {@link machineSource}) into
 * the folder `dir`, which must exist ({@link prepareOutDir}). Each file is written beside its
 * place and renamed into it, so a reader never sees half a file.
 */
export function writeMachineFiles(dir: string): MachineFile[] {
  const files: MachineFile[] = [];
  for (const machine of VERQ_MACHINE_NAMES) {
    const definition = VERQ_MACHINES[machine];
    const graph = machineGraph(definition);
    const texts: Record<MachineFileKind, string> = {
      json: machineJson(definition),
      mermaid: machineMermaid(graph),
      source: machineSource(graph),
    };
    for (const kind of Object.keys(texts) as MachineFileKind[]) {
      const path = join(dir, MACHINE_FILE_NAMES[kind](machine));
      writeReplacing(path, texts[kind]);
      files.push({ machine, kind, path });
    }
  }
  return files;
}

/** Writes `text` to a file beside `path`, then renames it over `path`. */
export function writeReplacing(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
