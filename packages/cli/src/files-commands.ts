import type { Command } from "commander";
import { DEFAULT_MAX_BYTES } from "@verq/adapters/constants";
import type { ReplayOptions } from "./files-actions.ts";
import type { ConsumeOptions, OrderCheckOptions, SchemaOptions } from "./files-profile-actions.ts";
import { dbOption, jsonOption, logLevelOption, type DbOptions, type JsonOptions } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when a command runs: the folders (and the store with --db) for all, the message profile's validator for the others.
const actions = () => import("./files-actions.ts");
const profileActions = () => import("./files-profile-actions.ts");

/**
 * `verq files …`: the directory queue of SPEC F1–F9. Exit codes: 0 done; 1 a monitored
 * condition is not met (`lag` over its threshold, `order-check` found a problem) or `consume`
 * left files it could not claim; 2 usage (also: ROOT is not a queue, a bad profile, a FILE that
 * is a path); 3 refused (`replay` onto a name the inbox already holds); 4 not found (`replay`
 * of a file not in `error/`, a database that does not exist for a read-only command).
 */
export function registerFilesCommands(program: Command, context: CliContext): void {
  const files = program
    .command("files")
    .description("a directory queue: inbox/ processing/ done/ error/, duplicates stopped by a primary key");

  files
    .command("init")
    .description("create ROOT/inbox, processing, done and error (on one filesystem)")
    .argument("<root>", "the queue's folder")
    .addOption(jsonOption())
    .action(async (root: string, o: JsonOptions) => (await actions()).init(context, root, o));

  files
    .command("consume")
    .description(
      "recover processing/, then claim and process every .json in the inbox; prints the done, error and duplicate counts",
    )
    .argument("<root>", "the queue's folder")
    .addOption(dbOption("SQLite file (created if missing) or postgres:// URL"))
    .option("--watch", "keep polling the inbox until SIGINT or SIGTERM")
    .option("--poll <duration>", "pause between polls of an empty inbox with --watch", "500ms")
    .option("--profile <file>", "JSON profile: fields, types, required, roles (default: msg_id, order_no, seq, amount)")
    .option("--max-bytes <n>", "files larger than this go to error/ as too-large", String(DEFAULT_MAX_BYTES))
    .option(
      "--recover-after <duration>",
      "also take over files in processing/ this old whatever their owner (e.g. a consumer on another host)",
    )
    // warn: a run prints its totals; each file's line is there with --log-level info.
    .addOption(logLevelOption("warn"))
    .addOption(jsonOption())
    .action(async (root: string, o: ConsumeOptions) => (await profileActions()).consume(context, root, o));

  files
    .command("errors")
    .description("the files in error/ as CSV file,reason (reason: parse, too-large, missing-field, invalid-field, handler)")
    .argument("<root>", "the queue's folder")
    .addOption(dbOption())
    .addOption(jsonOption("print JSON: file, reason, detail"))
    .action(async (root: string, o: DbOptions) => (await actions()).errors(context, root, o));

  files
    .command("dups")
    .description("the msg_ids stopped as duplicates, ascending, one a line")
    .addOption(dbOption())
    .addOption(jsonOption("print JSON: key and file of each duplicate"))
    .action(async (o: DbOptions) => (await actions()).dups(context, o));

  files
    .command("order-check")
    .description("OK when no order_no has a duplicated or missing seq; else one line per problem: order_no,kind,seq (exit 1)")
    .addOption(dbOption())
    .option("--profile <file>", "profile whose sequenceStart is the first seq of every order (default 1)")
    .option("--limit <n>", "print at most this many problems", "10000")
    .addOption(jsonOption())
    .action(async (o: OrderCheckOptions) => (await profileActions()).orderCheck(context, o));

  files
    .command("lag")
    .description("prints inbox=<n> processing=<n> error=<n>; exits 1 when the inbox holds more than THRESHOLD files")
    .argument("<root>", "the queue's folder")
    .argument("<threshold>", "the most files the inbox may hold without alarm")
    .addOption(jsonOption())
    .action(async (root: string, thresholdText: string, o: JsonOptions) =>
      (await actions()).lag(context, root, thresholdText, o),
    );

  files
    .command("replay")
    .description("move error/FILE back to inbox/; a FILE not in error/ (exit 4) or a path (exit 2) changes nothing")
    .argument("<root>", "the queue's folder")
    .argument("<file>", "a file name in error/ (as listed by files errors)")
    .option(
      "--db <file|url>",
      "also record the replay in this SQLite file or postgres:// URL (else the consumer records it when it claims the file)",
    )
    .addOption(jsonOption())
    .action(async (root: string, file: string, o: ReplayOptions) => (await actions()).replay(context, root, file, o));

  files
    .command("schema")
    .description("field,type,role inferred from the valid messages in inbox/ and done/ (roles: idempotency-key, sequence)")
    .argument("<root>", "the queue's folder")
    .option("--profile <file>", "JSON profile (default: msg_id, order_no, seq, amount)")
    .addOption(jsonOption())
    .action(async (root: string, o: SchemaOptions) => (await profileActions()).schema(context, root, o));
}
