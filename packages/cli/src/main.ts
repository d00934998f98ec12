import { Command, CommanderError } from "commander";
import { cliVersion } from "./cli-version.ts";
import { registerCheckCommands } from "./check-commands.ts";
import { registerDashboardCommands } from "./dashboard-commands.ts";
import { registerEventsCommands } from "./events-commands.ts";
import { EXIT } from "./exit-codes.ts";
import { registerFilesCommands } from "./files-commands.ts";
import { registerInitCommands } from "./init-commands.ts";
import { registerJobsCommands } from "./jobs-commands.ts";
import { registerQueuesCommands } from "./queues-commands.ts";
import { registerMetricsCommands } from "./metrics-commands.ts";
import { registerReceiverCommands } from "./receiver-commands.ts";
import { registerRelayCommands } from "./relay-commands.ts";
import { registerSchedulesCommands } from "./schedules-commands.ts";
import { registerVizCommands } from "./viz-commands.ts";
import type { CliContext, CliIo } from "./output.ts";
import { USAGE_CODE, allCommands, commanderMessage, guardOptionValues, usageLine } from "./usage.ts";

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
  json = false,
): Command {
  const program = new Command("verq")
    .description("effectively-once work on at-least-once delivery: jobs, a GUID relay, a file queue")
    .version(cliVersion(), "-V, --version", "print the version of @verq/cli and exit")
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      // A usage error found by commander reads like one an action finds: a VERQ_* code, one line.
      outputError: (s) => {
        const message = commanderMessage(s);
        if (json) io.out(JSON.stringify({ error: { code: USAGE_CODE, message } }));
        else io.err(`verq: ${USAGE_CODE}: ${message}`);
      },
    })
    .exitOverride();
  const context: CliContext = { io, setExitCode };
  // Each area registers its subcommands here, one line each (register<Area>Commands(program, context)).
  registerInitCommands(program, context);
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
  // After every usage error commander finds, the usage line of the command it was parsing.
  for (const command of allCommands(program)) command.showHelpAfterError(usageLine(command));
  guardOptionValues(program);
  return program;
}

/**
 * Runs `verq` with `argv` (without the node and script entries); resolves to the exit code. A
 * usage error (exit 2) prints `verq: VERQ_INVALID_ARGUMENT: message` (JSON on stdout with
 * `--json`) and the usage line of its command on stderr, whether commander or the action found
 * it; either way before any store is opened.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, (c) => (exitCode = c), argv.includes("--json"));
  let ran: Command | undefined;
  program.hook("preAction", (_program, action) => {
    ran = action;
    // No shell can pass a NUL byte in an argument; one is a caller's bug, never a file name or an id.
    const nul = argv.findIndex((arg) => arg.includes("\0"));
    if (nul !== -1) action.error(`argument ${nul + 1} contains a NUL byte`, { exitCode: EXIT.usage, code: "verq.nul" });
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      // A group without its subcommand (`verq jobs`): commander printed the group's help.
      if (error.code === "commander.help") io.err(`verq: ${USAGE_CODE}: a command is missing; the commands are listed above`);
      return EXIT.usage;
    }
    throw error;
  }
  if (exitCode === EXIT.usage && ran !== undefined) io.err(usageLine(ran));
  return exitCode;
}
