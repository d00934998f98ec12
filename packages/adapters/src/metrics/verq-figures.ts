import type { Clock } from "@verq/core";
import { GuidLedger, JobQueue, type JobStats, type LedgerStats, type VerqStore } from "@verq/store";
import { measureLag, type QueueLag } from "../files/queue-lag.ts";
import { DEFAULT_MAX_LABEL_VALUES } from "./label-bounds.ts";
import { labelGroups, type LabelBounds, type LabelledGroups } from "./labelled-groups.ts";
import { labelStreams, readStreamCounts, type LabelledStreams, type StreamBounds } from "./stream-figures.ts";

/** What one scrape reads: the jobs' and the ledger's statistics, the declared streams by state, the queue folders' counts, and "now". */
export interface VerqFigures {
  readonly jobs: JobStats;
  /** `jobs.groups` as the label values of the per-queue-and-kind metrics, within the bounds. */
  readonly labelled: LabelledGroups;
  readonly ledger: LedgerStats;
  /** The declared streams by type and state, as label values within the bounds. */
  readonly streams: LabelledStreams;
  /** `null` when no file queue is watched. */
  readonly files: QueueLag | null;
  /** The clock's time when the figures were read, for the ages. */
  readonly now: number;
}

/** Where the figures come from. */
export interface FigureSources {
  readonly store: VerqStore;
  readonly files?: string | undefined;
  readonly clock: Clock;
  readonly bounds: LabelBounds;
  /** The bounds of `verq_streams`: {@link DEFAULT_MAX_LABEL_VALUES} stream types, and states of each, unless given. */
  readonly streamBounds?: StreamBounds;
  /** Called once per read with what its labels folded into the overflow value. */
  readonly onRead?: (labelled: LabelledGroups, streams: LabelledStreams) => void;
}

/**
 * Reads the figures of one scrape. Every metric's `collect` asks for them in the same
 * synchronous pass of `registry.metrics()`, so the calls made while a read is in flight share
 * it: one scrape is one read of the store, and every figure in it comes from the same read.
 */
export function figureReader(sources: FigureSources): () => Promise<VerqFigures> {
  const queue = new JobQueue(sources.store);
  const ledger = new GuidLedger(sources.store);
  const streamBounds = sources.streamBounds ?? { types: DEFAULT_MAX_LABEL_VALUES, states: DEFAULT_MAX_LABEL_VALUES };
  let inFlight: Promise<VerqFigures> | null = null;
  const read = async (): Promise<VerqFigures> => {
    const [jobs, ledgerStats, streamCounts] = await Promise.all([queue.stats(), ledger.stats(), readStreamCounts(sources.store)]);
    const files = sources.files === undefined ? null : measureLag(sources.files);
    const labelled = labelGroups(jobs.groups, sources.bounds);
    const streams = labelStreams(streamCounts, streamBounds);
    sources.onRead?.(labelled, streams);
    return { jobs, labelled, ledger: ledgerStats, streams, files, now: sources.clock.now() };
  };
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
