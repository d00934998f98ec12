import { isVerqError, type Decision } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "./dialect/store-dialect.ts";
import type { VerqDatabase } from "./schema.ts";
import { insertEventRows, positionKey, type EventRow, type Positions } from "./sql/events/insertEventRows.ts";

/** Every stream's state has an id-bearing name, a machine state and the version of its last event (0: none yet). */
export interface StreamState {
  readonly state: string;
  readonly version: number;
}

/** An event as the machines emit it: a namespaced type and JSON data with its time. */
export interface StreamEvent {
  readonly type: string;
  readonly data: { readonly at: number };
}

/** What a machine decided for one stream: its state before, after, and the events between. */
export interface StreamChange<S extends StreamState, E extends StreamEvent> {
  readonly before: S;
  readonly after: S;
  readonly events: readonly E[];
}

/**
 * How the store keeps one stream type: where its current states are read from and how its
 * projection follows its events. One per lifecycle (jobs, the GUID ledger, file messages); the
 * command path below is the same for all of them.
 */
export interface StreamProjection<S extends StreamState, E extends StreamEvent> {
  /** The `stream_type` of its events, e.g. `job`. */
  readonly streamType: string;
  readonly idOf: (state: S) => string;
  /** The current states of `ids` that exist, read in the caller's transaction. */
  load(trx: Kysely<VerqDatabase>, ids: readonly string[]): Promise<Map<string, S>>;
  /**
   * Writes the projection for `changes` whose events were appended (their global positions in
   * `positions`): a row for each stream created (`before.version` 0), the rows of the others
   * rewritten only if still at `before.version` (else `VERQ_VERSION_CONFLICT`), and any audit
   * rows the events call for. Two changes of one stream are chained (the second's `before` is
   * the first's `after`).
   */
  project(trx: Kysely<VerqDatabase>, changes: readonly StreamChange<S, E>[], positions: Positions): Promise<void>;
  /** The version of the shape of each event type it writes (a declared stream's); absent: 1 for all. */
  readonly schemaVersion?: (eventType: string) => number;
  /**
   * Appends `events` (the events of `changes`, numbered as the command path numbers them, in
   * append order) and writes the projection of `changes` in fewer statements than the append and
   * then {@link project} take, where it can: returns false, having written nothing, where it
   * cannot (the command path then appends and projects). Both checks hold as they do apart: an
   * event whose version its stream already has, or a projection row no longer at the version
   * decided on, is `VERQ_VERSION_CONFLICT`. Optional.
   */
  appendAndProject?(
    trx: Kysely<VerqDatabase>,
    changes: readonly StreamChange<S, E>[],
    events: readonly EventRow[],
  ): Promise<boolean>;
}

/**
 * Appends the events of `changes` (one statement for all of them) and writes their projection,
 * in the caller's transaction: events and projections commit together or not at all.
 *
 * The UNIQUE(stream_type, stream_id, version) constraint is the arbiter. A creation (a change
 * from version 0) whose first event another writer already appended is, with `creations: "skip"`,
 * left out, and so are its projection and any later change of that stream in the batch: the
 * result lists the changes that were written, and the caller decides again against what the
 * winner wrote (an insert-or-nothing, never a lookup-then-insert). Otherwise, and for every other
 * change, a taken version is `VERQ_VERSION_CONFLICT` and the transaction must roll back.
 */
export async function commitChanges<S extends StreamState, E extends StreamEvent>(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  projection: StreamProjection<S, E>,
  changes: readonly StreamChange<S, E>[],
  options: { readonly creations?: "fail" | "skip" } = {},
): Promise<StreamChange<S, E>[]> {
  if (changes.length === 0) return [];
  if (options.creations !== "skip") {
    const events = rowsOf(projection, changes);
    if (projection.appendAndProject === undefined || !(await projection.appendAndProject(trx, changes, events))) {
      const positions = await insertEventRows(trx, dialect, projection.streamType, events, "fail");
      await projection.project(trx, changes, positions);
    }
    return [...changes];
  }
  const isCreation = (change: StreamChange<S, E>) => change.before.version === 0;
  const creations = changes.filter(isCreation);
  const positions = await insertEventRows(trx, dialect, projection.streamType, rowsOf(projection, creations), "skip");
  // The streams another writer created first (none, in the usual case of an enqueue).
  const lost = new Set<string>();
  for (const c of creations) {
    const id = projection.idOf(c.after);
    if (!positions.has(positionKey(id, 1))) lost.add(id);
  }
  const written = lost.size === 0 ? [...changes] : changes.filter((c) => !lost.has(projection.idOf(c.after)));
  const later = written.filter((c) => !isCreation(c));
  if (later.length > 0) {
    for (const [key, position] of await insertEventRows(trx, dialect, projection.streamType, rowsOf(projection, later), "fail")) {
      positions.set(key, position);
    }
  }
  await projection.project(trx, written, positions);
  return written;
}

function rowsOf<S extends StreamState, E extends StreamEvent>(
  projection: StreamProjection<S, E>,
  changes: readonly StreamChange<S, E>[],
): EventRow[] {
  // Plain loops: this runs for every event of every batch.
  const rows: EventRow[] = [];
  const schemaVersion = projection.schemaVersion;
  for (const change of changes) {
    const streamId = projection.idOf(change.after);
    const { events } = change;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as E;
      const row: EventRow = {
        streamId,
        version: change.before.version + i + 1,
        type: event.type,
        data: JSON.stringify(event.data),
        at: event.data.at,
      };
      rows.push(schemaVersion === undefined ? row : { ...row, schemaVersion: schemaVersion(event.type) });
    }
  }
  return rows;
}

/**
 * One stream and the commands to decide against it, in order: given, or built from the
 * stream's state when a fact in them depends on it (a backoff drawn for the job's attempt).
 */
export interface StreamCommands<C, S = never> {
  readonly id: string;
  readonly commands: readonly C[] | ((state: S) => readonly C[]);
}

/** One item of {@link decideMany}: the state it was decided against, and the decision. */
export interface Decided<S, D> {
  readonly before: S;
  readonly decision: D;
}

/**
 * Decides `items` in input order against `current` (the states loaded for them; it is updated
 * as items are accepted, so two items of one stream chain), a stream absent from it from
 * `initial(id)` (version 0). Pure but for `current` and what the commands' builders draw.
 * Returns each item's state before and decision, in input order, and the changes to commit.
 * `A` is the state an accepted decision ends in, when narrower than `S` (a created stream is
 * never back at version 0).
 */
export function decideMany<S extends StreamState, C extends { readonly type: string }, E extends StreamEvent, R, A extends S = S>(
  current: Map<string, S>,
  decide: (state: S, ...commands: readonly C[]) => Decision<A, E, R, C["type"]>,
  items: readonly StreamCommands<C, S>[],
  initial: (id: string) => S | undefined,
): { decided: Decided<S, Decision<A, E, R, C["type"]>>[]; changes: StreamChange<S, E>[] } {
  const changes: StreamChange<S, E>[] = [];
  const decided = items.map((item) => {
    const before = current.get(item.id) ?? initial(item.id);
    if (before === undefined) throw new Error(`no stream ${item.id} and no initial state for it`);
    const commands = typeof item.commands === "function" ? item.commands(before) : item.commands;
    const decision = decide(before, ...commands);
    if (decision.accepted) {
      changes.push({ before, after: decision.after, events: decision.events });
      current.set(item.id, decision.after);
    }
    return { before, decision };
  });
  return { decided, changes };
}

/**
 * The one command path (load → decide through the machine → append with the expected version →
 * project), for a batch of streams, in the caller's transaction. Items are decided in input
 * order, each against the state the earlier items of the batch left (two items of one stream
 * chain), exactly as if each were alone. A stream with no events yet is decided from `initial(id)`
 * (version 0), so its first event is decided by its machine like every other. Refused items write
 * nothing; accepted ones are committed together by {@link commitChanges}. Returns, per item in
 * input order, the state it was decided against and the decision (a refusal is answered from
 * that state).
 *
 * `known` gives states the caller already holds, read from this store (what its own last
 * accepted change left): those streams are decided without a load. The append is checked as
 * always (the UNIQUE arbiter on the next version, and the projection row still at the version
 * decided on), so a held state another writer moved past fails with `VERQ_VERSION_CONFLICT`
 * and writes nothing; the caller decides again from a load.
 */
export async function handleMany<
  S extends StreamState,
  C extends { readonly type: string },
  E extends StreamEvent,
  R,
  A extends S = S,
>(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  projection: StreamProjection<S, E>,
  decide: (state: S, ...commands: readonly C[]) => Decision<A, E, R, C["type"]>,
  items: readonly StreamCommands<C, S>[],
  initial: (id: string) => S | undefined,
  known?: ReadonlyMap<string, S>,
): Promise<Decided<S, Decision<A, E, R, C["type"]>>[]> {
  const ids = [...new Set(items.map((item) => item.id))];
  const missing = known === undefined ? ids : ids.filter((id) => !known.has(id));
  const current = missing.length === 0 ? new Map<string, S>() : await projection.load(trx, missing);
  if (known !== undefined) for (const id of ids) if (known.has(id)) current.set(id, known.get(id) as S);
  const { decided, changes } = decideMany(current, decide, items, initial);
  await commitChanges(trx, dialect, projection, changes);
  return decided;
}

/** {@link handleMany} for one stream: `handle(trx, dialect, projection, decide, id, initial, ...commands)`. */
export async function handle<
  S extends StreamState,
  C extends { readonly type: string },
  E extends StreamEvent,
  R,
  A extends S = S,
>(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  projection: StreamProjection<S, E>,
  decide: (state: S, ...commands: readonly C[]) => Decision<A, E, R, C["type"]>,
  id: string,
  initial: (id: string) => S | undefined,
  ...commands: readonly NoInfer<C>[]
): Promise<Decided<S, Decision<A, E, R, C["type"]>>> {
  const [decided] = await handleMany(trx, dialect, projection, decide, [{ id, commands }], initial);
  if (decided === undefined) throw new Error("handleMany returned no decision for one item");
  return decided;
}

/**
 * How many times a command is decided in all (the first time included) when other writers keep
 * appending to its stream first. Each `VERQ_VERSION_CONFLICT` means that another writer
 * committed a change of this very stream between this one's load and its append, so every lost
 * round is another writer's progress, and deciding again reads what it wrote: with k writers
 * racing on one stream, a writer loses at most k - 1 rounds in a row. The streams decided on
 * this path (a schedule's fires, an operator lock, a queue's settings) have a handful of writers
 * at most (the schedulers, the operators of one store), so 5 tries cover four rivals racing on
 * one stream at once; a caller that still loses gets the conflict and may call again, nothing
 * of its decision written.
 */
export const VERSION_CONFLICT_TRIES = 5;

/**
 * Runs `work` (one whole transaction: load, decide, append) again from the start while it fails
 * with `VERQ_VERSION_CONFLICT`, up to {@link VERSION_CONFLICT_TRIES} tries in all; any other
 * error, and the conflict of the last try, is thrown as it is. `work` must open its own
 * transaction, so that each try reads the stream anew. (On PostgreSQL the store's transaction
 * already counts a conflict as contention and decides again within its busy budget; SQLite's
 * `BEGIN IMMEDIATE` lets no other writer in between a load and its append.)
 */
export async function retryOnVersionConflict<T>(work: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await work();
    } catch (error) {
      if (tries >= VERSION_CONFLICT_TRIES || !isVerqError(error, "VERQ_VERSION_CONFLICT")) throw error;
    }
  }
}

/** What {@link handleWithRetry} needs of the store: its dialect and its write transactions. */
export interface CommandStore {
  readonly dialect: StoreDialect;
  transaction<T>(
    work: (trx: Kysely<VerqDatabase>) => Promise<T>,
    attempts?: number,
    options?: { readonly witnessed?: boolean },
  ): Promise<T>;
}

/**
 * The option of verq's own transactions whose every effect that matters is an event: a COMMIT of
 * one cut on a lost connection is settled from the log (see `VerqStore.transaction`).
 */
export const WITNESSED = { witnessed: true } as const;

/**
 * {@link handle} for one stream in a write transaction of its own, decided again (from a fresh
 * load) after a version conflict, as {@link retryOnVersionConflict} does. Build the commands
 * from the state (`item.commands` as a function) when they carry the time: each try then reads
 * the clock anew.
 */
export async function handleWithRetry<
  S extends StreamState,
  C extends { readonly type: string },
  E extends StreamEvent,
  R,
  A extends S = S,
>(
  store: CommandStore,
  projection: StreamProjection<S, E>,
  decide: (state: S, ...commands: readonly C[]) => Decision<A, E, R, C["type"]>,
  item: StreamCommands<C, S>,
  initial: (id: string) => S | undefined,
): Promise<Decided<S, Decision<A, E, R, C["type"]>>> {
  return retryOnVersionConflict(() =>
    store.transaction(
      async (trx) => {
        const [decided] = await handleMany(trx, store.dialect, projection, decide, [item], initial);
        if (decided === undefined) throw new Error(`no decision for stream ${item.id}`);
        return decided;
      },
      undefined,
      WITNESSED,
    ),
  );
}

/** What {@link decideCandidates} made of a list of candidates. */
export interface CandidateDecisions<S extends StreamState, E extends StreamEvent, R, K extends S = S> {
  /** The accepted candidates' changes, in candidate order: what to commit. */
  readonly changes: StreamChange<S, E>[];
  /** The candidates refused (and not ending the scan), each with its refusal, in candidate order. */
  readonly refused: { readonly state: K; readonly refusal: R }[];
  /** True when a refusal ended the scan (see `endsScan`); the candidates after it were not decided. */
  readonly ended: boolean;
}

/**
 * Decides each candidate (a stream's current state, as a query found it, each stream once)
 * against its own state with the commands `commands` builds for it, in order, without I/O: the
 * accepted ones become changes to commit with {@link commitChanges}, the refused ones are listed
 * with their refusal. It stops deciding once `max` candidates were accepted, or at the first
 * refusal for which `endsScan` (a rule of the machine's core, e.g. "the rest are younger") says
 * so: that candidate is neither accepted nor listed as refused. `K` is the candidates' own type
 * when narrower than the machine's state (a query finds only streams that exist), so that the
 * refused ones keep it.
 */
export function decideCandidates<
  S extends StreamState,
  C extends { readonly type: string },
  E extends StreamEvent,
  R,
  A extends S = S,
  K extends S = S,
>(
  decide: (state: S, ...commands: readonly C[]) => Decision<A, E, R, C["type"]>,
  candidates: readonly K[],
  commands: (state: K) => readonly NoInfer<C>[],
  options: { readonly max?: number; readonly endsScan?: (refusal: R) => boolean } = {},
): CandidateDecisions<S, E, R, K> {
  const { max = Number.POSITIVE_INFINITY, endsScan } = options;
  const changes: StreamChange<S, E>[] = [];
  const refused: { state: K; refusal: R }[] = [];
  for (const state of candidates) {
    if (changes.length >= max) break;
    const decision = decide(state, ...commands(state));
    if (decision.accepted) changes.push({ before: state, after: decision.after, events: decision.events });
    else if (endsScan?.(decision.refusal) === true) return { changes, refused, ended: true };
    else refused.push({ state, refusal: decision.refusal });
  }
  return { changes, refused, ended: false };
}
