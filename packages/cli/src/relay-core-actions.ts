import { type BulkPacing, type CoreClient, createHttpCoreClient } from "@verq/adapters/relay";
import { Pacer, formatRate, parseRate, type Rate } from "@verq/adapters/operators";
import { clockFromEnv } from "./clock-from-env.ts";
import { onStopSignal, parseDuration, parseWholeNumber, runCommand } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";
import { startProgress } from "./progress.ts";
import { list, withRelay } from "./relay-actions.ts";

/*
 * The actions of `verq relay …` that call the core over a ledger (resolve, reprocess); loaded by
 * ./relay-commands.ts when one runs: the store, the core and the HTTP client, no server.
 */

/** The options of the commands that call the core: `--core` and `--core-timeout`. */
export interface CoreOptions extends DbOptions {
  readonly core: string;
  readonly coreTimeout: string;
  readonly rate?: string;
}

/**
 * The pacing of `--rate` (none without it), a progress bar on a terminal, and SIGINT/SIGTERM
 * stopping the run before its next call to the core; `run` gets them as {@link BulkPacing}.
 * Resolves to what `run` returned and the seconds it took.
 */
async function paced<T>(
  o: CoreOptions,
  label: string,
  rate: Rate | undefined,
  run: (pacing: BulkPacing) => Promise<T>,
): Promise<{ report: T; seconds: string }> {
  const clock = clockFromEnv();
  const pacer = rate === undefined ? null : new Pacer(rate, clock);
  const progress = await startProgress(label, { json: o.json === true });
  const stop = new AbortController();
  const off = onStopSignal(() => stop.abort());
  const started = Date.now();
  try {
    const report = await run({
      pace: async () => {
        if (pacer !== null && !(await pacer.admit(stop.signal))) return false;
        pacer?.mark(clock.now());
        return !stop.signal.aborted;
      },
      onProgress: (done, total) => progress.update(done, total, {}),
    });
    return { report, seconds: ((Date.now() - started) / 1_000).toFixed(1) };
  } finally {
    progress.stop();
    off();
  }
}

/** The core client of `--core` and `--core-timeout`; throws `VERQ_INVALID_ARGUMENT` for a bad URL or duration. */
const coreFrom = (o: CoreOptions): CoreClient =>
  createHttpCoreClient({ url: o.core, timeoutMs: parseDuration(o.coreTimeout, "--core-timeout", { min: 1, max: 86_400_000 }) });

/** The options of `verq relay resolve`. */
export interface ResolveOptions extends CoreOptions {
  readonly minAge: string;
  readonly limit: string;
}

/** `verq relay resolve`: UNKNOWN entries older than `--min-age` settled by the core's inquiry; exit 1 when an inquiry failed. */
export const resolve = (context: CliContext, o: ResolveOptions): Promise<void> =>
  runCommand(context, o, () => {
    const minAgeMs = parseDuration(o.minAge, "--min-age");
    const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
    const rate = o.rate === undefined ? undefined : parseRate(o.rate);
    return withRelay(o.db, coreFrom(o), async (service) => {
      const { report, seconds } = await paced(o, "resolve", rate, (pacing) => service.resolve({ minAgeMs, limit, ...pacing }));
      emit(context.io, o.json === true, report, () =>
        [
          ...(report.interrupted ? ["interrupted: the entries not reached are left UNKNOWN (a rerun continues)"] : []),
          `resolved: DONE ${report.done.length}${list(report.done)}, FAILED ${report.failed.length}${list(report.failed)}`,
          `younger than the min age (left UNKNOWN): ${report.young.length}${list(report.young)}`,
          `inquiry errors (left UNKNOWN): ${report.errors.length}${report.errors.length === 0 ? "" : ` (${report.errors.map((e) => `${e.guid}: ${e.reason}`).join(", ")})`}`,
          `in ${seconds} s${rate === undefined ? "" : ` at ${formatRate(rate)}`}`,
        ].join("\n"),
      );
      if (report.interrupted) return EXIT.interrupted;
      return report.errors.length > 0 ? EXIT.failed : EXIT.ok;
    });
  });

/** The options of `verq relay reprocess`. */
export interface ReprocessOptions extends CoreOptions {
  readonly maxAttempts: string;
  readonly limit: string;
}

/** `verq relay reprocess`: FAILED entries sent again with the same GUID; exit 1 when one did not end DONE. */
export const reprocess = (context: CliContext, o: ReprocessOptions): Promise<void> =>
  runCommand(context, o, () => {
    const maxAttempts = parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1 });
    const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
    const rate = o.rate === undefined ? undefined : parseRate(o.rate);
    return withRelay(o.db, coreFrom(o), async (service) => {
      const { report, seconds } = await paced(o, "reprocess", rate, (pacing) =>
        service.reprocess({ maxAttempts, limit, ...pacing }),
      );
      emit(context.io, o.json === true, report, () =>
        [
          ...(report.interrupted ? ["interrupted: the entries not reached are left as they were (a rerun continues)"] : []),
          ...report.items
            .filter((i) => i.outcome === "sent")
            .map((i) => `${i.guid} sent again (attempt ${i.attempts}) -> ${i.state}${i.outcome === "sent" ? ` ${i.code}` : ""}`),
          `reprocessed: DONE ${report.done}, not DONE ${report.notDone}; at the attempt cap ${report.atCap}; UNKNOWN skipped (resolve them) ${report.skippedUnknown}; in ${seconds} s${rate === undefined ? "" : ` at ${formatRate(rate)}`}`,
        ].join("\n"),
      );
      if (report.interrupted) return EXIT.interrupted;
      return report.notDone > 0 ? EXIT.failed : EXIT.ok;
    });
  });
