import { runCli } from "@verq/cli";

/** The CLI's result as a test reads it: its exit code and what it wrote to stdout and stderr. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs `verq args` in this process (`runCli`) and captures its output: stdout one text per line,
 * stderr as written. For tests that need no child process.
 */
export async function verq(...args: string[]): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t.endsWith("\n") ? t : `${t}\n`), err: (t) => (err += t) });
  return { code, out, err };
}

/** One line of `--json` output as an object. */
export const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
