import type { Command } from "commander";

/*
 * How a usage error reads, whichever part of the CLI finds it (commander while it parses, or an
 * action while it checks its options): one `verq: VERQ_INVALID_ARGUMENT: message` line (or the
 * JSON error on stdout with `--json`), then the usage line of the command on stderr. Loads only
 * the types of commander, like the registrations.
 */

/** The code of every usage error (exit 2). */
export const USAGE_CODE = "VERQ_INVALID_ARGUMENT";

/** The longest message a usage error prints: a 1 MB argument is named, never echoed whole. */
const MAX_MESSAGE = 300;

/** `text` cut to {@link MAX_MESSAGE} characters, with the number of characters left out. */
export function clip(text: string, max = MAX_MESSAGE): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The full name of `command`, `verq jobs work`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** The usage line of `command`: `usage: verq jobs show [options] <id> (verq jobs show --help for more)`. */
export function usageLine(command: Command): string {
  const path = commandPath(command);
  return `usage: ${path} ${command.usage()} (${path} --help for more)`;
}

/** Every command of the tree under `root`, `root` included, parents before their subcommands. */
export function allCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => allCommands(c))];
}

/** The commands that run something (no subcommands): the ones a user gives options to. */
export function leafCommands(root: Command): Command[] {
  return allCommands(root).filter((c) => c.commands.length === 0);
}

/**
 * Checks every value commander hands an option, on every command under `root`, as it parses:
 * - a value that starts with `--` is the next option, not a value (`--db --json` would open a
 *   SQLite file named `--json`): a usage error, as a missing value is;
 * - an option given twice with different values is a usage error (commander keeps the last one
 *   silently: `--db a.sqlite --db b.sqlite` would open `b.sqlite`). The same value twice is
 *   accepted; a flag without a value may be repeated, and so may an option that takes a list
 *   (`--kind a b`): each of its values is kept.
 */
export function guardOptionValues(root: Command): void {
  for (const command of allCommands(root)) {
    const seen = new Map<string, string>();
    for (const option of command.options) {
      if (!option.required && !option.optional) continue;
      const name = option.name();
      command.on(`option:${name}`, (value: unknown) => {
        const text = String(value);
        if (text.startsWith("--")) {
          command.error(`${option.long ?? name} needs a value; got the option ${clip(text, 40)}`, {
            exitCode: 2,
            code: "verq.optionAsValue",
          });
        }
        const before = seen.get(name);
        if (before !== undefined && before !== text && !option.variadic) {
          command.error(`${option.long ?? name} given twice with different values; give it once`, {
            exitCode: 2,
            code: "verq.conflictingRepeat",
          });
        }
        seen.set(name, text);
      });
    }
  }
}

/** The message of a commander error without its `error: ` prefix and line break, clipped. */
export function commanderMessage(text: string): string {
  return clip(text.replace(/^error: /, "").trim());
}
