/**
 * `@verq/cli`: the `verq` command, as a bin (`verq --help`) and as a function a program calls
 * in its own process. {@link runCli} runs one command line with its output sent to the given
 * {@link CliIo} and resolves to its exit code, one of {@link EXIT}; it loads a command's modules
 * only when that command runs, as the bin does.
 *
 * @packageDocumentation
 */
export { runCli } from "./main.ts";
export type { CliIo } from "./output.ts";
export { EXIT, type ExitCode } from "./exit-codes.ts";
