import type { Command } from "commander";
import { jsonOption } from "./options.ts";
import type { CliContext } from "./output.ts";
import { streamsOption } from "./streams-module.ts";
import type { VizOptions } from "./viz-actions.ts";

// Loaded when the command runs: @verq/core's machines and the generators.
const actions = () => import("./viz-actions.ts");

/**
 * `verq viz`: the machines for the Stately visualizer and the docs. Exit codes: 0 done; 1
 * `--check` found a stale diagram; 2 usage (no `--out` nor `--docs`, an `--out` that cannot be
 * created or written to, a `--docs` file with bad markers, a bad `--streams` module); 4 a `--docs`
 * file that does not exist. With `--streams`, the machines of the service's declared stream types
 * are written into DIR/streams/ and may be named in `--docs` blocks.
 */
export function registerVizCommands(program: Command, context: CliContext): void {
  program
    .command("viz")
    .description(
      "write each machine (job, guid, message, …) as DIR/<name>.json, .mmd (Mermaid) and .machine.ts (for Stately's visualizer), those of --streams under DIR/streams/, and/or refresh the diagrams in a Markdown file",
    )
    .option("--out <dir>", "folder to write the files into (created if missing)")
    .option("--docs <file>", "Markdown file whose <!-- verq:viz NAME --> blocks are regenerated")
    .option("--check", "with --docs: change nothing, exit 1 when a block differs from the machines")
    .addOption(streamsOption())
    .addOption(jsonOption("print JSON: the files written and the state of each docs block"))
    .action(async (o: VizOptions) => (await actions()).viz(context, o));
}
