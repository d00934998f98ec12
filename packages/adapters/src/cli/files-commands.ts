import { FileLedger } from "@verq/store";
import type { Command } from "commander";
import { csvLine } from "../files/csv.ts";
import { listErrors } from "../files/error-list.ts";
import { FileConsumer, type ConsumeTotals } from "../files/file-consumer.ts";
import { DEFAULT_PROFILE, loadProfile, type FileQueueProfile } from "../files/profile.ts";
import { initQueue } from "../files/queue-dirs.ts";
import { formatLag, measureLag } from "../files/queue-lag.ts";
import { DEFAULT_MAX_BYTES } from "../files/read-claimed-file.ts";
import { checkFileName, replayFile } from "../files/replay-file.ts";
import { inferSchema } from "../files/schema-inference.ts";
import {
  dbOption,
  jsonOption,
  onStopSignal,
  parseDuration,
  parseWholeNumber,
  runCommand,
  withStore,
  type DbOptions,
  type JsonOptions,
} from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import { emit, type CliContext } from "./output.ts";

/** Opens the store at `db` with a ledger on it for `work`, and closes it after. Read-only commands (`mustExist`) never create a database. */
const withLedger = <T>(db: string, mustExist: boolean, work: (ledger: FileLedger) => Promise<T>): Promise<T> =>
  withStore(db, (store) => work(new FileLedger(store)), { mustExist });

const profileFrom = (path: string | undefined): FileQueueProfile => (path === undefined ? DEFAULT_PROFILE : loadProfile(path));

const describeTotals = (t: ConsumeTotals): string =>
  `done=${t.done} error=${t.error} duplicates=${t.duplicates} recovered=${t.recovered}`;

/**
 * `verq files …`: the directory queue of SPEC F1–F9. Exit codes: 0 done; 1 a monitored
 * condition is not met (`lag` over its threshold, `order-check` found a problem) or `consume`
 * left files it could not claim; 2 usage (also: ROOT is not a queue, a bad profile, a FILE that
 * is a path); 3 refused (`replay` onto a name the inbox already holds); 4 not found (`replay`
 * of a file not in `error/`, a database that does not exist for a read-only command).
 */
export function registerFilesCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const files = program
    .command("files")
    .description("a directory queue: inbox/ processing/ done/ error/, duplicates stopped by a primary key");

  files
    .command("init")
    .description("create ROOT/inbox, processing, done and error (on one filesystem)")
    .argument("<root>", "the queue's folder")
    .addOption(jsonOption())
    .action((root: string, o: JsonOptions) =>
      runCommand(context, o, () => {
        const dirs = initQueue(root);
        emit(io, o.json === true, dirs, () => `initialised ${dirs.root}: inbox/ processing/ done/ error/`);
      }),
    );

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
    .addOption(jsonOption())
    .action(
      (
        root: string,
        o: DbOptions & { watch?: boolean; poll: string; profile?: string; maxBytes: string; recoverAfter?: string },
      ) =>
        runCommand(context, o, () => {
          const profile = profileFrom(o.profile);
          const maxBytes = parseWholeNumber(o.maxBytes, "--max-bytes");
          const pollMs = parseDuration(o.poll, "--poll");
          const recoverAfterMs = o.recoverAfter === undefined ? undefined : parseDuration(o.recoverAfter, "--recover-after");
          const json = o.json === true;
          return withLedger(o.db, false, async (ledger) => {
            const consumer = new FileConsumer({
              root,
              ledger,
              profile,
              maxBytes,
              ...(recoverAfterMs === undefined ? {} : { recoverAfterMs }),
            });
            let totals: ConsumeTotals;
            if (o.watch === true) {
              const abort = new AbortController();
              const off = onStopSignal(() => abort.abort());
              emit(
                io,
                json,
                { watching: consumer.dirs.root, pollMs },
                () => `watching ${consumer.dirs.root} (poll ${o.poll}); stop with SIGINT or SIGTERM`,
              );
              try {
                totals = await consumer.watch(abort.signal, pollMs, (t) => emit(io, json, t, () => describeTotals(t)));
              } finally {
                off();
              }
            } else {
              totals = await consumer.drain();
            }
            emit(io, json, totals, () => describeTotals(totals));
            for (const s of totals.skipped)
              if (!json) io.err(`verq: could not claim ${s.file} (${s.code}); it is still in inbox/`);
            return totals.skipped.length > 0 ? EXIT.failed : EXIT.ok;
          });
        }),
    );

  files
    .command("errors")
    .description("the files in error/ as CSV file,reason (reason: parse, too-large, missing-field, invalid-field, handler)")
    .argument("<root>", "the queue's folder")
    .addOption(dbOption())
    .addOption(jsonOption("print JSON: file, reason, detail"))
    .action((root: string, o: DbOptions) =>
      runCommand(context, o, () =>
        withLedger(o.db, true, async (ledger) => {
          const entries = await listErrors(root, ledger);
          emit(io, o.json === true, entries, () =>
            [csvLine("file", "reason"), ...entries.map((e) => csvLine(e.file, e.reason))].join("\n"),
          );
        }),
      ),
    );

  files
    .command("dups")
    .description("the msg_ids stopped as duplicates, ascending, one a line")
    .addOption(dbOption())
    .addOption(jsonOption("print JSON: key and file of each duplicate"))
    .action((o: DbOptions) =>
      runCommand(context, o, () =>
        withLedger(o.db, true, async (ledger) => {
          if (o.json === true) emit(io, true, await ledger.duplicates(), () => "");
          else {
            const keys = await ledger.duplicateKeys();
            if (keys.length > 0) io.out(keys.join("\n"));
          }
        }),
      ),
    );

  files
    .command("order-check")
    .description("OK when no order_no has a duplicated or missing seq; else one line per problem: order_no,kind,seq (exit 1)")
    .addOption(dbOption())
    .option("--profile <file>", "profile whose sequenceStart is the first seq of every order (default 1)")
    .option("--limit <n>", "print at most this many problems", "10000")
    .addOption(jsonOption())
    .action((o: DbOptions & { profile?: string; limit: string }) =>
      runCommand(context, o, () => {
        const limit = Math.max(1, parseWholeNumber(o.limit, "--limit"));
        const start = profileFrom(o.profile).sequenceStart;
        return withLedger(o.db, true, async (ledger) => {
          const check = await ledger.checkOrder({ start, limit });
          emit(io, o.json === true, check, () =>
            check.problems.length === 0 ? "OK" : check.problems.map((p) => csvLine(p.group, p.kind, p.sequence)).join("\n"),
          );
          if (check.truncated && o.json !== true) io.err(`verq: more than ${limit} problems; only the first ${limit} are shown`);
          return check.problems.length === 0 ? EXIT.ok : EXIT.failed;
        });
      }),
    );

  files
    .command("lag")
    .description("prints inbox=<n> processing=<n> error=<n>; exits 1 when the inbox holds more than THRESHOLD files")
    .argument("<root>", "the queue's folder")
    .argument("<threshold>", "the most files the inbox may hold without alarm")
    .addOption(jsonOption())
    .action((root: string, thresholdText: string, o: JsonOptions) =>
      runCommand(context, o, () => {
        const threshold = parseWholeNumber(thresholdText, "THRESHOLD");
        const lag = measureLag(root);
        emit(io, o.json === true, { ...lag, threshold, over: lag.inbox > threshold }, () => formatLag(lag));
        return lag.inbox > threshold ? EXIT.failed : EXIT.ok;
      }),
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
    .action((root: string, file: string, o: JsonOptions & { db?: string }) =>
      runCommand(context, o, async () => {
        checkFileName(file);
        // With --db the store is opened before the move: a database that cannot be used moves nothing.
        let recorded = false;
        if (o.db === undefined) replayFile(root, file);
        else
          recorded = await withLedger(o.db, true, async (ledger) => {
            replayFile(root, file);
            return (await ledger.replay(file)) !== null;
          });
        emit(io, o.json === true, { file, replayed: true, recorded }, () => `replayed ${file}: error/ -> inbox/`);
      }),
    );

  files
    .command("schema")
    .description("field,type,role inferred from the valid messages in inbox/ and done/ (roles: idempotency-key, sequence)")
    .argument("<root>", "the queue's folder")
    .option("--profile <file>", "JSON profile (default: msg_id, order_no, seq, amount)")
    .addOption(jsonOption())
    .action((root: string, o: JsonOptions & { profile?: string }) =>
      runCommand(context, o, () => {
        const schema = inferSchema(root, profileFrom(o.profile));
        emit(io, o.json === true, schema, () =>
          [csvLine("field", "type", "role"), ...schema.fields.map((f) => csvLine(f.field, f.type, f.role))].join("\n"),
        );
        if (schema.messages === 0 && o.json !== true) io.err("verq: no valid message in inbox/ or done/ to infer fields from");
      }),
    );
}
