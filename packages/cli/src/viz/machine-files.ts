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
  type MachineGraph,
  type VerqMachineName,
} from "@verq/core";

/** What a machine is written as: its machine config in JSON, its Mermaid diagram, its visualizer module. */
export type MachineFileKind = "json" | "mermaid" | "source";

/** Any XState machine, as @verq/core types its own (the CLI does not depend on xstate itself). */
type AnyMachine = (typeof VERQ_MACHINES)[VerqMachineName];

/** One file `writeMachineFiles` or `writeDeclaredMachineFiles` wrote. */
export interface MachineFile {
  /** One of verq's machines (`VERQ_MACHINE_NAMES`), or a declared stream type's name. */
  readonly machine: string;
  readonly kind: MachineFileKind;
  /** Absolute path. */
  readonly path: string;
  /** Only on the files of a machine declared with `defineStream` (`--streams`). */
  readonly declared?: true;
}

/**
 * The folder under `--out` that the machines of declared stream types are written into, so that
 * a declared name never takes the place of a file of verq's own machines.
 */
export const DECLARED_DIR = "streams";

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
  return VERQ_MACHINE_NAMES.flatMap((machine) => writeTexts(dir, machine, machineTexts(VERQ_MACHINES[machine], machineSource)));
}

/** A declared stream type's machine, drawn: its three texts, by kind. */
export interface DeclaredMachineTexts {
  readonly name: string;
  readonly texts: Readonly<Record<MachineFileKind, string>>;
}

/**
 * The three texts of the machine of each declared stream type (`defineStream`, `--streams`),
 * made before anything is written: a machine that cannot be drawn is `VERQ_INVALID_ARGUMENT`
 * naming its stream type, and `--out` is left as it was.
 */
export function drawDeclaredMachines(
  definitions: readonly { readonly name: string; readonly machine: AnyMachine }[],
): DeclaredMachineTexts[] {
  return definitions.map(({ name, machine }) => {
    try {
      return { name, texts: machineTexts(machine, (graph) => declaredSource(graph, name)) };
    } catch (error) {
      const reason = error instanceof Error ? error.message : typeof error;
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        `--streams: the machine of stream type "${name}" cannot be drawn (${reason})`,
        {
          cause: error,
        },
      );
    }
  });
}

/**
 * Writes the machines {@link drawDeclaredMachines} drew as `<name>.json`, `<name>.mmd` and
 * `<name>.machine.ts` into `dir`, the {@link DECLARED_DIR} folder under `--out`
 * ({@link prepareOutDir}), as {@link writeMachineFiles} writes verq's. Each file is marked
 * `declared`, and the module's header names the service's stream type, not verq.
 */
export function writeDeclaredMachineFiles(dir: string, machines: readonly DeclaredMachineTexts[]): MachineFile[] {
  return machines.flatMap(({ name, texts }) =>
    writeTexts(dir, name, texts).map((file) => ({ ...file, declared: true as const })),
  );
}

/** A machine's three texts, its module by `source`. */
function machineTexts(machine: AnyMachine, source: (graph: MachineGraph) => string): Record<MachineFileKind, string> {
  const graph = machineGraph(machine);
  return { json: machineJson(machine), mermaid: machineMermaid(graph), source: source(graph) };
}

/** Writes one machine's three texts into `dir`. */
function writeTexts(dir: string, name: string, texts: Readonly<Record<MachineFileKind, string>>): MachineFile[] {
  return (Object.keys(texts) as MachineFileKind[]).map((kind) => {
    const path = join(dir, MACHINE_FILE_NAMES[kind](name));
    writeReplacing(path, texts[kind]);
    return { machine: name, kind, path };
  });
}

/** What core's {@link machineSource} says of the machine it writes: that it is verq's. */
const VERQ_ATTRIBUTION = "the machine itself is verq's.";

/** {@link machineSource} of a declared stream type's machine, whose header says whose it is. */
export function declaredSource(graph: MachineGraph, name: string): string {
  return machineSource(graph).replace(VERQ_ATTRIBUTION, `the machine is the service's, stream type ${JSON.stringify(name)}.`);
}

/** Writes `text` to a file beside `path`, then renames it over `path`. */
export function writeReplacing(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
