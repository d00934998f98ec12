import { VERQ_MACHINES, VERQ_MACHINE_NAMES, VerqError, machineGraph, machineMermaid, type VerqMachineName } from "@verq/core";
import { refusalTable } from "./refusal-table.ts";

/** Any XState machine, as @verq/core's machines are typed (adapters do not depend on xstate itself). */
type AnyMachine = (typeof VERQ_MACHINES)[VerqMachineName];

/** One marked block of a Markdown file and whether it differed from the code. */
export interface VizBlock {
  /** One of verq's machines, or a declared stream type's name (`--streams`). */
  readonly machine: string;
  readonly stale: boolean;
}

/** A Markdown text with its marked blocks regenerated. */
export interface RefreshedDocs {
  readonly text: string;
  readonly blocks: readonly VizBlock[];
}

/**
 * What docs/machines.md holds for a machine between its markers: its Mermaid diagram in a
 * ```mermaid block, then the table of its refusals. Made from the machine's definition.
 */
export function vizBlockContent(machine: AnyMachine): string {
  const graph = machineGraph(machine);
  return `\`\`\`mermaid\n${machineMermaid(graph)}\`\`\`\n\nRefused (the machine stays where it is and records nothing):\n\n${refusalTable(graph)}`;
}

const OPEN = /^<!-- verq:viz ([^\s>]+) -->$/;
const CLOSE = /^<!-- \/verq:viz ([^\s>]+) -->$/;

/**
 * Regenerates every block of `markdown` between `<!-- verq:viz NAME -->` and
 * `<!-- /verq:viz NAME -->` (each on a line of its own) with `content(NAME)` for a machine of
 * {@link VERQ_MACHINES}, or the {@link vizBlockContent} of the machine `declared` holds under
 * NAME (the stream types of `--streams`), and says which differed. Everything outside the markers
 * is kept as it is. A text without markers, a marker naming no machine of either, a block opened
 * twice, left open or closed without being opened is `VERQ_INVALID_ARGUMENT`. Pure.
 */
export function refreshVizBlocks(
  markdown: string,
  content: (machine: VerqMachineName) => string = (name) => vizBlockContent(VERQ_MACHINES[name]),
  declared: ReadonlyMap<string, AnyMachine> = new Map(),
): RefreshedDocs {
  const lines = markdown.split("\n");
  const out: string[] = [];
  const blocks: VizBlock[] = [];
  // A name is checked when its block opens (machineName): one of verq's, or one `declared` holds.
  const contentOf = (name: string): string => {
    const machine = declared.get(name);
    return machine === undefined || isVerqMachine(name) ? content(name as VerqMachineName) : vizBlockContent(machine);
  };
  let open: { machine: string; body: string[]; line: number } | null = null;
  lines.forEach((line, index) => {
    const opening = OPEN.exec(line)?.[1];
    const closing = CLOSE.exec(line)?.[1];
    if (opening !== undefined) {
      if (open !== null) throw invalid(`line ${index + 1} opens ${opening} inside the block of ${open.machine}`);
      open = { machine: machineName(opening, index, declared), body: [], line: index };
      out.push(line);
    } else if (closing !== undefined) {
      if (open === null || open.machine !== closing) throw invalid(`line ${index + 1} closes ${closing}, which is not open`);
      const fresh = contentOf(open.machine);
      blocks.push({ machine: open.machine, stale: `${open.body.join("\n")}\n` !== fresh });
      out.push(...fresh.replace(/\n$/, "").split("\n"), line);
      open = null;
    } else if (open !== null) open.body.push(line);
    else out.push(line);
  });
  const unclosed = open as { machine: string; line: number } | null;
  if (unclosed !== null) throw invalid(`the block of ${unclosed.machine} opened on line ${unclosed.line + 1} is never closed`);
  if (blocks.length === 0) throw invalid("no <!-- verq:viz NAME --> … <!-- /verq:viz NAME --> block found");
  return { text: out.join("\n"), blocks };
}

const isVerqMachine = (name: string): name is VerqMachineName => Object.hasOwn(VERQ_MACHINES, name);

function machineName(name: string, index: number, declared: ReadonlyMap<string, AnyMachine>): string {
  if (!isVerqMachine(name) && !declared.has(name)) {
    const names = [...VERQ_MACHINE_NAMES, ...declared.keys()].join(", ");
    throw invalid(`line ${index + 1} names ${JSON.stringify(name.slice(0, 40))}, not a machine (${names})`);
  }
  return name;
}

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", `--docs: ${message}`);
