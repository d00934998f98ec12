import type { Command } from "commander";
import { dbOption, jsonOption, logLevelOption, requestTimeoutOption, type DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";
import type { PurgeOptions } from "./relay-actions.ts";
import type { ReprocessOptions, ResolveOptions } from "./relay-core-actions.ts";
import type { ServeOptions } from "./relay-serve.ts";

// Loaded when a command runs: the store for all, the HTTP client to call the core, the HTTP server for `serve`.
const actions = () => import("./relay-actions.ts");
const coreActions = () => import("./relay-core-actions.ts");
const server = () => import("./relay-serve.ts");

const LEDGER_DB = "SQLite file or postgres:// URL of the ledger";

/** The options of the commands that call the core over a ledger: resolve and reprocess. */
function withCoreOptions(command: Command, what: { timeoutOf: string; limitOf: string }): Command {
  return command
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--core <url>", "the core's base URL")
    .option("--core-timeout <duration>", `timeout of ${what.timeoutOf}`, "10s")
    .option("--limit <n>", `look at most at this many ${what.limitOf}, oldest first`, "1000")
    .option("--rate <n/s>", "at most N calls to the core per second (N/s) or minute (N/m); a progress bar on a terminal")
    .addOption(jsonOption());
}

/**
 * `verq relay …`: serve, resolve, reprocess, purge, show, stats (SPEC G1–G8). Exit codes:
 * 0 done; 1 work left undone (resolve: an inquiry failed; reprocess: an entry sent again did
 * not end DONE); 2 usage; 3 refused by a rule (purge whose retention is not longer than the
 * resend window); 4 unknown GUID.
 */
export function registerRelayCommands(program: Command, context: CliContext): void {
  const relay = program
    .command("relay")
    .description("the GUID relay: an idempotency ledger in front of a core that is not idempotent");

  relay
    .command("serve")
    .description("serve POST /transfer until SIGINT or SIGTERM; sweeps entries left in flight by a relay that died")
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--core <url>", "the core's base URL (POST /transfer, GET /transfer/{guid})")
    .requiredOption("--port <n>", "TCP port (0 picks a free one)")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--core-timeout <duration>", "how long to wait for the core's answer before UNKNOWN (E901)", "10s")
    .option(
      "--recover-after <duration>",
      "sweep RECEIVED → FAILED and SENT → UNKNOWN once this old (longer than --core-timeout)",
      "1m",
    )
    .option("--max-attempts <n>", "how many times a GUID may be sent in all, channel resends of a FAILED entry included", "5")
    .addOption(requestTimeoutOption())
    .addOption(logLevelOption())
    .addOption(jsonOption("print JSON lines"))
    .action(async (o: ServeOptions) => (await server()).serve(context, o));

  withCoreOptions(
    relay
      .command("resolve")
      .description("settle UNKNOWN entries older than --min-age by the core's inquiry: found → DONE, not found → FAILED")
      .requiredOption("--min-age <duration>", "the core's longest processing time; younger entries are not asked about"),
    { timeoutOf: "each inquiry", limitOf: "UNKNOWN entries" },
  ).action(async (o: ResolveOptions) => (await coreActions()).resolve(context, o));

  withCoreOptions(
    relay
      .command("reprocess")
      .description("send FAILED entries again with the same GUID and the stored request, up to --max-attempts; never UNKNOWN")
      .requiredOption("--max-attempts <n>", "attempt cap per GUID, first send included"),
    { timeoutOf: "each call", limitOf: "entries" },
  ).action(async (o: ReprocessOptions) => (await coreActions()).reprocess(context, o));

  relay
    .command("purge")
    .description(
      "delete DONE entries older than --retention, with their events (audited); never UNKNOWN, FAILED, RECEIVED or SENT",
    )
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--retention <duration>", "keep DONE entries this long; must be longer than --resend-window")
    .requiredOption("--resend-window <duration>", "the channel's longest resend window")
    .addOption(jsonOption())
    .action(async (o: PurgeOptions) => (await actions()).purge(context, o));

  relay
    .command("show")
    .description("a ledger entry and its timeline")
    .argument("<guid>", "the GUID")
    .addOption(dbOption(LEDGER_DB))
    .addOption(jsonOption("print JSON: guid, state, code, attempts, updatedAt, …, events"))
    .action(async (guid: string, o: DbOptions) => (await actions()).show(context, guid, o));

  relay
    .command("stats")
    .description("entries by state, the oldest UNKNOWN and FAILED, attempts, the last purge")
    .addOption(dbOption(LEDGER_DB))
    .addOption(jsonOption())
    .action(async (o: DbOptions) => (await actions()).stats(context, o));
}
