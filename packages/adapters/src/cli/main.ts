import { Command, CommanderError } from "commander";
import { registerCheckCommands } from "./check-commands.ts";
import { registerDashboardCommands } from "./dashboard-commands.ts";
import { registerEventsCommands } from "./events-commands.ts";
import { EXIT } from "./exit-codes.ts";
import { registerFilesCommands } from "./files-commands.ts";
import { registerJobsCommands } from "./jobs-commands.ts";
import { registerQueuesCommands } from "./queues-commands.ts";
import { registerMetricsCommands } from "./metrics-commands.ts";
import { registerReceiverCommands } from "./receiver-commands.ts";
import { registerRelayCommands } from "./relay-commands.ts";
import { registerSchedulesCommands } from "./schedules-commands.ts";
import { registerVizCommands } from "./viz-commands.ts";
import type { CliContext, CliIo } from "./output.ts";

/** The process's own stdout and stderr, each text ending with one line break. */
const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
};

/**
 * Builds the `verq` program. Each area registers its own subcommands from its own file, so
 * that jobs, relay, files and receiver evolve without touching one another. The registrations
 * load nothing but commander: each action imports its area's module when it runs, so `--help`,
 * a usage error and the parsing of any command load no store, no HTTP server or client and no
 * validator, and a command loads only what it uses (`jobs stats`: the store, never fastify).
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
  registerQueuesCommands(program, context);
  registerReceiverCommands(program, context);
  registerRelayCommands(program, context);
  registerFilesCommands(program, context);
  registerMetricsCommands(program, context);
  registerVizCommands(program, context);
  registerCheckCommands(program, context);
  registerDashboardCommands(program, context);
  registerEventsCommands(program, context);
  registerSchedulesCommands(program, context);
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
