import type { FileLedger } from "@verq/store";
import { csvLine } from "./csv.ts";
import { checkFileName, formatLag, initQueue, listErrors, measureLag, openQueue, replayFile } from "@verq/adapters/files";
import { parsePath, parseWholeNumber, runCommand, withStore } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions, JsonOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The actions of `verq files …` that need no message profile (init, lag, errors, dups,
 * replay); loaded by ./files-commands.ts when one runs: the folders, and the store only for a
 * command that opens one.
 */

/** Opens the store at `db` with a ledger on it for `work`, and closes it after. Read-only commands (`mustExist`) never create a database. */
export const withLedger = <T>(db: string, mustExist: boolean, work: (ledger: FileLedger) => Promise<T>): Promise<T> =>
  withStore(
    db,
    async (store) => {
      const { FileLedger } = await import("@verq/store");
      return work(new FileLedger(store));
    },
    { mustExist },
  );

/** `verq files init`: create the queue's four folders. */
export const init = (context: CliContext, root: string, o: JsonOptions): Promise<void> =>
  runCommand(context, o, () => {
    const dirs = initQueue(parsePath(root, "ROOT"));
    emit(context.io, o.json === true, dirs, () => `initialised ${dirs.root}: inbox/ processing/ done/ error/`);
  });

/** `verq files errors`: the files in error/ as CSV file,reason. */
export const errors = (context: CliContext, root: string, o: DbOptions): Promise<void> =>
  runCommand(context, o, () => {
    openQueue(parsePath(root, "ROOT"));
    return withLedger(o.db, true, async (ledger) => {
      const entries = await listErrors(root, ledger);
      emit(context.io, o.json === true, entries, () =>
        [csvLine("file", "reason"), ...entries.map((e) => csvLine(e.file, e.reason))].join("\n"),
      );
    });
  });

/** `verq files dups`: the msg_ids stopped as duplicates, ascending, one a line. */
export const dups = (context: CliContext, o: DbOptions): Promise<void> =>
  runCommand(context, o, () =>
    withLedger(o.db, true, async (ledger) => {
      if (o.json === true) emit(context.io, true, await ledger.duplicates(), () => "");
      else {
        const keys = await ledger.duplicateKeys();
        if (keys.length > 0) context.io.out(keys.join("\n"));
      }
    }),
  );

/** `verq files lag`: the folders' counts; exit 1 when the inbox holds more than the threshold. */
export const lag = (context: CliContext, root: string, thresholdText: string, o: JsonOptions): Promise<void> =>
  runCommand(context, o, () => {
    const threshold = parseWholeNumber(thresholdText, "THRESHOLD");
    const counts = measureLag(parsePath(root, "ROOT"));
    emit(context.io, o.json === true, { ...counts, threshold, over: counts.inbox > threshold }, () => formatLag(counts));
    return counts.inbox > threshold ? EXIT.failed : EXIT.ok;
  });

/** The options of `verq files replay`. */
export interface ReplayOptions extends JsonOptions {
  readonly db?: string;
}

/** `verq files replay`: move error/FILE back to inbox/, recorded in the ledger with `--db`. */
export const replay = (context: CliContext, root: string, file: string, o: ReplayOptions): Promise<void> =>
  runCommand(context, o, async () => {
    parsePath(root, "ROOT");
    checkFileName(file);
    // With --db the store is opened before the move: a database that cannot be used moves nothing.
    let recorded = false;
    if (o.db === undefined) replayFile(root, file);
    else
      recorded = await withLedger(o.db, true, async (ledger) => {
        replayFile(root, file);
        return (await ledger.replay(file)) !== null;
      });
    emit(context.io, o.json === true, { file, replayed: true, recorded }, () => `replayed ${file}: error/ -> inbox/`);
  });
