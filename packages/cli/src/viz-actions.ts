import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { MessageError, VerqError } from "@verq/core";
import {
  DECLARED_DIR,
  drawDeclaredMachines,
  prepareOutDir,
  writeDeclaredMachineFiles,
  writeMachineFiles,
  writeReplacing,
  type DeclaredMachineTexts,
  type MachineFile,
} from "./viz/machine-files.ts";
import { refreshVizBlocks, type VizBlock } from "./viz/viz-docs.ts";
import { parsePath, runCommand } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { JsonOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";
import { loadStreams, type StreamsOptions } from "./streams-module.ts";

/** The options of `verq viz` as commander hands them over. */
export interface VizOptions extends JsonOptions, StreamsOptions {
  readonly out?: string;
  readonly docs?: string;
  readonly check?: boolean;
}

/** What `verq viz --json` prints. */
interface VizReport {
  readonly files: readonly MachineFile[];
  readonly docs: { readonly path: string; readonly checked: boolean; readonly blocks: readonly VizBlock[] } | null;
}

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);

/**
 * `verq viz`: every option is checked, the `--streams` module loaded and the `--docs` file read
 * and parsed before anything is written; then the machine files go into `--out` (those of the
 * declared stream types into its `streams/` folder), then the docs blocks are rewritten (unless
 * `--check`, which only reports).
 */
export const viz = (context: CliContext, o: VizOptions): Promise<void> =>
  runCommand(context, o, async () => {
    if (o.out === undefined && o.docs === undefined) throw invalid("give --out DIR, --docs FILE, or both");
    if (o.check === true && o.docs === undefined) throw invalid("--check needs --docs FILE");
    if (o.out?.trim() === "") throw invalid("--out must name a folder");
    if (o.out !== undefined) parsePath(o.out, "--out");
    if (o.docs !== undefined) parsePath(o.docs, "--docs");
    const definitions = await loadStreams(o.streams);
    const docs = o.docs === undefined ? null : readDocs(o.docs);
    const declared = new Map(definitions.map((definition) => [definition.name, definition.machine]));
    const refreshed = docs === null ? null : refreshVizBlocks(docs.text, undefined, declared);
    const drawn = o.out === undefined ? [] : drawDeclaredMachines(definitions);
    const files = o.out === undefined ? [] : writeOut(o.out, drawn);
    const stale = refreshed?.blocks.filter((b) => b.stale) ?? [];
    if (docs !== null && refreshed !== null && o.check !== true && stale.length > 0) writeReplacing(docs.path, refreshed.text);
    const report: VizReport = {
      files,
      docs: docs === null ? null : { path: docs.path, checked: o.check === true, blocks: refreshed?.blocks ?? [] },
    };
    emit(context.io, o.json === true, report, () => human(report));
    return o.check === true && stale.length > 0 ? EXIT.failed : EXIT.ok;
  });

/** Writes verq's machines into `--out`, and the declared ones into its `streams/` folder, both made first. */
function writeOut(out: string, declared: readonly DeclaredMachineTexts[]): MachineFile[] {
  const dir = prepareOutDir(out);
  const declaredDir = declared.length === 0 ? null : prepareOutDir(join(out, DECLARED_DIR));
  return [...writeMachineFiles(dir), ...(declaredDir === null ? [] : writeDeclaredMachineFiles(declaredDir, declared))];
}

function readDocs(file: string): { path: string; text: string } {
  const path = resolve(file);
  if (!existsSync(path)) throw new MessageError("VERQ_FILE_NOT_FOUND", `no file at ${path}; check --docs`);
  try {
    return { path, text: readFileSync(path, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new VerqError("VERQ_INVALID_ARGUMENT", `--docs ${path} cannot be read (${code})`, { cause: error });
  }
}

function human(report: VizReport): string {
  const lines = report.files.map((f) => `wrote ${f.path}`);
  const { docs } = report;
  if (docs !== null) {
    for (const block of docs.blocks) {
      const state = !block.stale ? "up to date" : docs.checked ? "stale (refresh it with verq viz --docs)" : "rewritten";
      lines.push(`${docs.path}: ${block.machine} ${state}`);
    }
  }
  return lines.join("\n");
}
