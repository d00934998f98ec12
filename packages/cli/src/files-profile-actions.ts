import { csvLine } from "./csv.ts";
import {
  type ConsumeTotals,
  DEFAULT_PROFILE,
  FileConsumer,
  type FileQueueProfile,
  inferSchema,
  loadProfile,
  openQueue,
} from "@verq/adapters/files";
import { openLogger, parseLogLevel } from "./cli-logger.ts";
import { onStopSignal, parseDuration, parsePath, parseWholeNumber, runCommand } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import { withLedger } from "./files-actions.ts";
import type { DbOptions, JsonOptions, LogLevelOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The actions of `verq files …` that read messages by a profile (consume, order-check, schema);
 * loaded by ./files-commands.ts when one runs: the profile's validator (zod) with them.
 */

const profileFrom = (path: string | undefined): FileQueueProfile => (path === undefined ? DEFAULT_PROFILE : loadProfile(path));

const describeTotals = (t: ConsumeTotals): string =>
  `done=${t.done} error=${t.error} duplicates=${t.duplicates} recovered=${t.recovered}`;

/** The options of `verq files consume`. */
export interface ConsumeOptions extends DbOptions, LogLevelOptions {
  readonly watch?: boolean;
  readonly poll: string;
  readonly profile?: string;
  readonly maxBytes: string;
  readonly recoverAfter?: string;
}

/** `verq files consume`: recover processing/, then claim and process every message in the inbox (or keep watching it). */
export const consume = (context: CliContext, root: string, o: ConsumeOptions): Promise<void> =>
  runCommand(context, o, () => {
    const { io } = context;
    // The queue is checked before the store is opened: a ROOT that is not a queue creates no database.
    openQueue(parsePath(root, "ROOT"));
    const profile = profileFrom(o.profile);
    const maxBytes = parseWholeNumber(o.maxBytes, "--max-bytes");
    const pollMs = parseDuration(o.poll, "--poll");
    const recoverAfterMs = o.recoverAfter === undefined ? undefined : parseDuration(o.recoverAfter, "--recover-after");
    const logLevel = parseLogLevel(o.logLevel);
    const json = o.json === true;
    return withLedger(o.db, false, async (ledger) => {
      const consumer = new FileConsumer({
        root,
        ledger,
        logger: await openLogger(context, logLevel, "verq-files"),
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
      for (const s of totals.skipped) if (!json) io.err(`verq: could not claim ${s.file} (${s.code}); it is still in inbox/`);
      return totals.skipped.length > 0 ? EXIT.failed : EXIT.ok;
    });
  });

/** The options of `verq files order-check`. */
export interface OrderCheckOptions extends DbOptions {
  readonly profile?: string;
  readonly limit: string;
}

/** `verq files order-check`: OK, or one line per duplicated or missing seq (exit 1). */
export const orderCheck = (context: CliContext, o: OrderCheckOptions): Promise<void> =>
  runCommand(context, o, () => {
    const limit = Math.max(1, parseWholeNumber(o.limit, "--limit"));
    const start = profileFrom(o.profile).sequenceStart;
    return withLedger(o.db, true, async (ledger) => {
      const check = await ledger.checkOrder({ start, limit });
      emit(context.io, o.json === true, check, () =>
        check.problems.length === 0 ? "OK" : check.problems.map((p) => csvLine(p.group, p.kind, p.sequence)).join("\n"),
      );
      if (check.truncated && o.json !== true)
        context.io.err(`verq: more than ${limit} problems; only the first ${limit} are shown`);
      return check.problems.length === 0 ? EXIT.ok : EXIT.failed;
    });
  });

/** The options of `verq files schema`. */
export interface SchemaOptions extends JsonOptions {
  readonly profile?: string;
}

/** `verq files schema`: field,type,role inferred from the valid messages in inbox/ and done/. */
export const schema = (context: CliContext, root: string, o: SchemaOptions): Promise<void> =>
  runCommand(context, o, () => {
    const inferred = inferSchema(parsePath(root, "ROOT"), profileFrom(o.profile));
    emit(context.io, o.json === true, inferred, () =>
      [csvLine("field", "type", "role"), ...inferred.fields.map((f) => csvLine(f.field, f.type, f.role))].join("\n"),
    );
    if (inferred.messages === 0 && o.json !== true)
      context.io.err("verq: no valid message in inbox/ or done/ to infer fields from");
  });
