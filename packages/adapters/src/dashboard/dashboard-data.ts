import type { Job, LedgerEntry } from "@verq/core";
import type { FileLedger, GuidLedger, JobQueue, JobStats, LedgerStats, MessageStats } from "@verq/store";
import { listFiles, openQueue, QUEUE_FOLDERS } from "../files/queue-dirs.ts";
import type { DeclaredReaders, DeclaredTypeOverview } from "./declared-data.ts";

/** Files in each folder of the file queue, or why they could not be counted. */
export type FolderCounts =
  | { readonly ok: true; readonly root: string; readonly counts: Readonly<Record<(typeof QUEUE_FOLDERS)[number], number>> }
  | { readonly ok: false; readonly root: string; readonly problem: string };

/** Everything the overview page shows, read from the store (and the queue's folders, when given). Identifiers only, never payloads. */
export interface Overview {
  readonly at: number;
  readonly jobs: JobStats;
  /** Dead jobs, longest dead first, at most `limit`. */
  readonly dead: readonly Job[];
  readonly ledger: LedgerStats;
  /** UNKNOWN and FAILED entries, oldest change first, at most `limit`. */
  readonly open: readonly LedgerEntry[];
  readonly messages: MessageStats;
  readonly folders: FolderCounts | null;
  /** The stream types the service declared, each with its streams by state and its most recently updated streams. */
  readonly streams: readonly DeclaredTypeOverview[];
  /** The most rows a table shows. */
  readonly limit: number;
}

/** The services the dashboard reads through, on one store. */
export interface DashboardReaders {
  readonly jobs: JobQueue;
  readonly guids: GuidLedger;
  readonly files: FileLedger;
  readonly declared: DeclaredReaders;
}

/**
 * Reads the overview: job and ledger statistics, the dead letters, the open ledger entries, the
 * message counts and the declared stream types' counts and latest streams; the job counts in
 * parallel with the rest.
 */
export async function readOverview(
  readers: DashboardReaders,
  options: { readonly now: number; readonly limit: number; readonly filesRoot: string | null },
): Promise<Overview> {
  const { limit } = options;
  // The job counts read the whole jobs table: the rest is read meanwhile (on PostgreSQL on another connection).
  const rest = async () => ({
    dead: await readers.jobs.list("dead", { limit }),
    ledger: await readers.guids.stats(),
    open: await readers.guids.list(["UNKNOWN", "FAILED"], limit),
    messages: await readers.files.stats(),
    streams: await readers.declared.overview(limit),
  });
  const [jobs, read] = await Promise.all([readers.jobs.stats(), rest()]);
  return {
    at: options.now,
    jobs,
    ...read,
    folders: options.filesRoot === null ? null : countFolders(options.filesRoot),
    limit,
  };
}

/** Counts the files in each folder of the queue at `root`; a queue that is gone or broken is reported, not thrown. */
export function countFolders(root: string): FolderCounts {
  try {
    const dirs = openQueue(root);
    const counts = Object.fromEntries(QUEUE_FOLDERS.map((folder) => [folder, listFiles(dirs[folder]).length])) as Record<
      (typeof QUEUE_FOLDERS)[number],
      number
    >;
    return { ok: true, root: dirs.root, counts };
  } catch (error) {
    return { ok: false, root, problem: error instanceof Error ? error.message : String(error) };
  }
}
