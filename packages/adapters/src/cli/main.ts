import { Command, CommanderError } from "commander";
import { EXIT } from "./exit-codes.ts";
import { registerFilesCommands } from "./files-commands.ts";
import { registerJobsCommands } from "./jobs-commands.ts";
import { registerReceiverCommands } from "./receiver-commands.ts";
import { registerRelayCommands } from "./relay-commands.ts";
import { processIo, type CliContext, type CliIo } from "./output.ts";

/**
 * Builds the `verq` program. Each area registers its own subcommands from its own file, so
 * that jobs, relay, files and receiver evolve without touching one another.
 */
export function buildProgram(
  io: CliIo = processIo,
  setExitCode: (code: number) => void = (c) => (process.exitCode = c),
): Command {
  const program = new Command("verq")
    .description("effectively-once work on at-least-once delivery: jobs, a GUID relay, a file queue")
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  const context: CliContext = { io, setExitCode };
  // Each area registers its subcommands here, one line each (register<Area>Commands(program, context)).
  registerJobsCommands(program, context);
  registerReceiverCommands(program, context);
  registerRelayCommands(program, context);
  registerFilesCommands(program, context);
  return program;
}

/** Runs `verq` with `argv` (without the node and script entries); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, (c) => (exitCode = c));
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}
