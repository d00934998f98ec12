import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { StreamDefinition } from "@verq/core";
import { Option } from "commander";

/*
 * The stream types a service declared (`defineStream`), as `verq events`, `verq check` and
 * `verq viz` read them from the service's own module. The option is declared with commander
 * alone; @verq/core is loaded only when a command reads the module, so `--help` and the parsing
 * of a command load nothing more than before.
 */

/** The option of a command that reads the stream types a service declared (`--streams`). */
export interface StreamsOptions {
  readonly streams?: string;
}

/** `--streams <module>` (env `VERQ_STREAMS`): the service's module that exports its `defineStream` definitions. */
export function streamsOption(): Option {
  return new Option(
    "--streams <module>",
    "an ES module file exporting the service's stream definitions (defineStream): its stream types are read, checked and drawn beside verq's own",
  ).env("VERQ_STREAMS");
}

/** A definition from the module, as every command uses it (its state and refusal types are the module's). */
export type AnyStreamDefinition = StreamDefinition;

/**
 * The stream definitions that the module at `path` exports (each exported value that
 * `defineStream` returned, in export order), or none without a path. An empty or overlong path, a
 * path that is not a file, a module that cannot be loaded (or whose definitions throw while it
 * loads), one that exports no definition, two definitions of one name and a definition named
 * as one of verq's own stream types are each `VERQ_INVALID_ARGUMENT`, before any store is opened.
 */
export async function loadStreams(path: string | undefined): Promise<AnyStreamDefinition[]> {
  if (path === undefined) return [];
  const [{ STREAM_TYPES, VerqError, isStreamDefinition }, { parsePath }] = await Promise.all([
    import("@verq/core"),
    import("./common.ts"),
  ]);
  const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", `--streams: ${message}`);
  const shown = JSON.stringify(parsePath(path, "--streams").slice(0, 200));
  const file = resolve(path);
  if (!existsSync(file)) throw invalid(`no module at ${shown}`);
  if (!statSync(file).isFile()) throw invalid(`${shown} is not a file`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : typeof error;
    throw invalid(
      `cannot load ${shown} (${reason.slice(0, 300)}); give a compiled ES module, or run verq through tsx for a .ts one`,
    );
  }
  const found = new Map<string, AnyStreamDefinition>();
  for (const value of Object.values(module)) {
    if (!isStreamDefinition(value)) continue;
    const other = found.get(value.name);
    if (other !== undefined && other !== value) throw invalid(`two definitions of stream type "${value.name}"`);
    // defineStream refuses these names; a definition made by another copy of verq may not know them all.
    if ((STREAM_TYPES as readonly string[]).includes(value.name)) {
      throw invalid(`stream type "${value.name}" is one of verq's own`);
    }
    found.set(value.name, value);
  }
  if (found.size === 0) throw invalid(`${shown} exports no stream definition (defineStream)`);
  return [...found.values()];
}
