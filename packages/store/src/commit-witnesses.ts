/**
 * One event a transaction appended, as it was written: what tells, after a COMMIT whose answer
 * never came, whether the transaction landed. The log is append-only and UNIQUE(stream_type,
 * stream_id, version) admits one event per place, so the transaction landed exactly when its
 * events stand in the log at their places.
 */
export interface CommitWitness {
  readonly streamType: string;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: string;
  readonly at: number;
}

/** The witnesses of each transaction that {@link watchCommit} watches, by the transaction handed to its work. */
const watched = new WeakMap<object, CommitWitness[]>();

/**
 * Starts collecting what `trx` appends (`VerqStore.transaction` does it for each of its tries)
 * and returns the list the appends will fill.
 */
export function watchCommit(trx: object): CommitWitness[] {
  const witnesses: CommitWitness[] = [];
  watched.set(trx, witnesses);
  return witnesses;
}

/**
 * Records events appended in `trx`, when a store transaction watches it: each function that
 * writes to the event log calls this with what it wrote (for an insert-or-nothing, only the
 * rows it did write). Outside such a transaction it does nothing.
 */
export function witness(trx: object, streamType: string, rows: Iterable<Omit<CommitWitness, "streamType">>): void {
  const witnesses = watched.get(trx);
  if (witnesses === undefined) return;
  for (const row of rows) witnesses.push({ streamType, ...row });
}
