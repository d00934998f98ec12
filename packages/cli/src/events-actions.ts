import { STREAM_TYPES, VerqError, checkSubscription } from "@verq/core";
import { EventSubscriptions, type StoredEvent } from "@verq/store";
import { failpoint } from "@verq/adapters/failpoints";
import { READ_ONLY, onStopSignal, parseChoice, parseDuration, parseWholeNumber, runCommand, withStore } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";
import { loadStreams, type StreamsOptions } from "./streams-module.ts";

/*
 * The action of `verq events`, loaded by ./events-commands.ts when it runs: the store, nothing else.
 */

/** The options of `verq events`. */
export interface EventsOptions extends DbOptions, StreamsOptions {
  /** A position, or `end`. */
  readonly from: string;
  readonly follow?: boolean;
  readonly type?: string;
  readonly name?: string;
  readonly batchSize: string;
  readonly poll: string;
}

/**
 * One event as a line of NDJSON: `{"position","type","streamType","streamId","version","at","data"}`,
 * `at` in ms since the epoch. With `--streams` (`schemaVersion` true), the line also carries the
 * schema version of its data, `{…,"version","schemaVersion","at","data"}`: a declared stream's
 * event comes upcast to its type's current version, every other event as it was stored (1).
 */
const eventLine = (e: StoredEvent, schemaVersion: boolean): string =>
  JSON.stringify({
    position: e.position,
    type: e.type,
    streamType: e.streamType,
    streamId: e.streamId,
    version: e.version,
    ...(schemaVersion ? { schemaVersion: e.schemaVersion } : {}),
    at: e.at,
    data: e.data,
  });

/** `--from`: a position (a whole number), or `end` for the events committed after the command starts. */
function parseFrom(text: string): number | "end" {
  if (text === "end") return "end";
  if (/^\d{1,16}$/.test(text)) return parseWholeNumber(text, "--from");
  throw new VerqError(
    "VERQ_INVALID_ARGUMENT",
    `--from must be a position (a whole number) or end; got ${JSON.stringify(text.slice(0, 80))}`,
  );
}

/**
 * `verq events`: prints events in position order, a batch at a time, and with `--name` saves the
 * subscriber's checkpoint after each batch is written (so a crash prints the batch again: at
 * least once). `--from end` starts after the newest event there is when the store is opened.
 * Without `--follow` it stops once caught up with the log as it stood at the start;
 * with it, at SIGINT or SIGTERM, after the batch in progress. With `--streams`, `--type` also
 * takes the module's stream types, and their events are printed upcast. Failpoint
 * `events.midBatch`: half of a batch printed, its checkpoint not saved.
 */
export const events = (context: CliContext, o: EventsOptions): Promise<void> =>
  runCommand(context, o, async () => {
    const from = parseFrom(o.from);
    const batchSize = parseWholeNumber(o.batchSize, "--batch-size", { min: 1, max: 10_000 });
    const pollMs = parseDuration(o.poll, "--poll", { min: 1, max: 3_600_000 });
    const definitions = await loadStreams(o.streams);
    const known = [...STREAM_TYPES, ...definitions.map((definition) => definition.name)];
    const types = o.type?.split(",").map((t) => parseChoice(t.trim(), "--type", known));
    const line = (e: StoredEvent) => eventLine(e, o.streams !== undefined);
    const live = o.follow === true;
    // Every option is checked before the store is opened.
    checkSubscription({ name: o.name, from: from === "end" ? undefined : from, types, batchSize, pollMs });
    return withStore(
      o.db,
      async (store) => {
        const subscription = new EventSubscriptions(store).subscribe({
          ...(o.name === undefined ? {} : { name: o.name }),
          ...(types === undefined ? {} : { types }),
          ...(definitions.length === 0 ? {} : { streams: definitions }),
          // `end`: after the newest event there is now, read once the store is open.
          from: from === "end" ? (await store.lastPosition()) + 1 : from,
          batchSize,
          pollMs,
          live,
          handle: (batch) => {
            const half = Math.ceil(batch.length / 2);
            context.io.out(batch.slice(0, half).map(line).join("\n"));
            if (batch.length > 1) failpoint("events.midBatch");
            if (batch.length > half) context.io.out(batch.slice(half).map(line).join("\n"));
          },
        });
        const off = onStopSignal(() => void subscription.stop());
        try {
          await subscription.done;
        } finally {
          off();
        }
        return EXIT.ok;
      },
      READ_ONLY,
    );
  });
