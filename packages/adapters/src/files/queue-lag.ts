import { isMessageFileName, listFiles, openQueue } from "./queue-dirs.ts";

/** How many files wait in each folder that needs attention (SPEC F7). */
export interface QueueLag {
  /** Message files waiting to be claimed (the names a consumer would take). */
  readonly inbox: number;
  /** Files claimed and not yet settled (in flight, or left by a consumer that died). */
  readonly processing: number;
  /** Files quarantined, waiting for a fix and a replay. */
  readonly error: number;
}

/** Counts the inbox, processing and error folders of the queue at `root`. */
export function measureLag(root: string): QueueLag {
  const dirs = openQueue(root);
  return {
    inbox: listFiles(dirs.inbox, isMessageFileName).length,
    processing: listFiles(dirs.processing).length,
    error: listFiles(dirs.error).length,
  };
}

/** The one line of SPEC F7: `inbox=<n> processing=<n> error=<n>`. */
export const formatLag = (lag: QueueLag): string => `inbox=${lag.inbox} processing=${lag.processing} error=${lag.error}`;
