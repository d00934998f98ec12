import { checkIdentifier, machineGraph, type JsonObject, type StreamDefinition } from "@verq/core";
import { declaredStreams, declareStream, type VerqStore } from "@verq/store";
import { layoutMachine, type MachineLayout } from "./machine-diagram.ts";

/**
 * Any stream type a service declared with `defineStream`, whatever its state and refusal types:
 * the dashboard uses only what every definition has.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStreamDefinition = StreamDefinition<any, any>;

/** One stream of a declared type as its row of the generic projection (`stream_states`) holds it. */
export interface StreamSummary {
  readonly id: string;
  readonly state: string;
  readonly version: number;
  /** The holder token, for a type that declares fencing; else null. */
  readonly token: number | null;
  /** When its last event was decided, in ms since the epoch. */
  readonly updatedAt: number;
}

/** What the overview shows of one declared stream type. */
export interface DeclaredTypeOverview {
  readonly name: string;
  readonly layout: MachineLayout;
  readonly fenced: boolean;
  /** Streams in each state of the machine, 0 included. */
  readonly counts: Readonly<Record<string, number>>;
  readonly total: number;
  /** The most recently updated streams, latest first (then by id), at most the overview's limit. */
  readonly recent: readonly StreamSummary[];
}

/** One event of a declared stream as its page shows it. */
export interface DeclaredEventView {
  readonly version: number;
  readonly position: number;
  readonly at: number;
  readonly type: string;
  /** The schema version the event was written with. */
  readonly storedSchema: number;
  /** The schema version its data is shown at: the event type's current one, or the stored one when it cannot be upcast. */
  readonly schema: number;
  readonly data: unknown;
  /** Why its data could not be brought to the current version (it is then shown as stored); null when it was. */
  readonly problem: string | null;
}

/** A stream of a declared type: its state as projected (or folded from its events) and its timeline. */
export interface DeclaredStreamView {
  readonly type: string;
  readonly id: string;
  readonly state: string;
  readonly version: number;
  /** The holder token, for a type that declares fencing; else null. */
  readonly token: number | null;
  readonly fenced: boolean;
  /** True when the generic projection has no row of the stream and its state was folded from its events. */
  readonly folded: boolean;
  readonly events: readonly DeclaredEventView[];
}

/** Each declared machine laid out once: a definition never changes while the process runs. */
const layouts = new WeakMap<AnyStreamDefinition, MachineLayout>();

function layoutOf(definition: AnyStreamDefinition): MachineLayout {
  let layout = layouts.get(definition);
  if (layout === undefined) {
    // Named apart from verq's own machines, so that the arrow markers of two diagrams never share an id.
    layout = layoutMachine(`stream-${definition.name}`, machineGraph(definition.machine));
    layouts.set(definition, layout);
  }
  return layout;
}

const summary = (row: { stream_id: string; state: string; version: number; token: number | null; updated_at: number }) => ({
  id: row.stream_id,
  state: row.state,
  version: Number(row.version),
  token: row.token === null ? null : Number(row.token),
  updatedAt: Number(row.updated_at),
});

/**
 * The dashboard's reads of the stream types a service declared: those given to it (declared on
 * the store when the dashboard is made, so that another definition of one of their names is
 * `VERQ_STREAM_TYPE_TAKEN` there) and every other one declared on the same store, looked up at
 * each request. Counts and lists come from the generic projection (`stream_states`), timelines
 * from the event log; nothing is written.
 */
export class DeclaredReaders {
  readonly #store: VerqStore;

  constructor(store: VerqStore, definitions: readonly AnyStreamDefinition[]) {
    this.#store = store;
    for (const definition of definitions) declareStream(store, definition);
    // Laid out now, so that a machine the diagrams cannot read fails here rather than on a page.
    for (const definition of definitions) layoutOf(definition);
  }

  /** The declared stream types, in the order they were declared. */
  get definitions(): AnyStreamDefinition[] {
    return [...declaredStreams(this.#store).values()];
  }

  /** Whether `type` is a declared stream type. */
  has(type: string): boolean {
    return declaredStreams(this.#store).has(type);
  }

  /** Each declared type's streams by state (one grouped query per type) and its `limit` most recently updated streams. */
  async overview(limit: number): Promise<DeclaredTypeOverview[]> {
    const found: DeclaredTypeOverview[] = [];
    for (const definition of this.definitions) {
      const counts = await declareStream(this.#store, definition).countByState();
      const rows = await this.#store.db
        .selectFrom("stream_states")
        .select(["stream_id", "state", "version", "token", "updated_at"])
        .where("stream_type", "=", definition.name)
        .orderBy("updated_at", "desc")
        .orderBy("stream_id")
        .limit(limit)
        .execute();
      found.push({
        name: definition.name,
        layout: layoutOf(definition),
        fenced: definition.fencing !== null,
        counts,
        total: Object.values(counts).reduce((sum, n) => sum + n, 0),
        recent: rows.map(summary),
      });
    }
    return found;
  }

  /**
   * Stream `id` of the declared type `type` with its events in version order, each upcast to its
   * event type's current schema; null for a type not declared or a stream without a row or an
   * event. An id that is not one is `VERQ_INVALID_ID`.
   */
  async stream(type: string, id: string): Promise<DeclaredStreamView | null> {
    const definition = declaredStreams(this.#store).get(type);
    if (definition === undefined) return null;
    checkIdentifier(id, "a stream id");
    const { db } = this.#store;
    const row = await db
      .selectFrom("stream_states")
      .select(["stream_id", "state", "version", "token", "updated_at"])
      .where("stream_type", "=", type)
      .where("stream_id", "=", id)
      .executeTakeFirst();
    const stored = await db
      .selectFrom("events")
      .select(["position", "version", "type", "data", "at_ms", "schema_version"])
      .where("stream_type", "=", type)
      .where("stream_id", "=", id)
      .orderBy("version")
      .execute();
    if (row === undefined && stored.length === 0) return null;
    const events = stored.map((event): DeclaredEventView => {
      const storedSchema = Number(event.schema_version);
      const data = JSON.parse(event.data) as JsonObject;
      const base = {
        version: Number(event.version),
        position: Number(event.position),
        at: Number(event.at_ms),
        type: event.type,
      };
      try {
        const upcast = definition.upcast(event.type, storedSchema, data);
        return { ...base, storedSchema, schema: definition.schemaVersion(event.type), data: upcast, problem: null };
      } catch (error) {
        // An event this code cannot read (written by newer code, or an upcaster that throws) is shown as stored.
        const problem = error instanceof Error ? error.message : String(error);
        return { ...base, storedSchema, schema: storedSchema, data, problem };
      }
    });
    const fenced = definition.fencing !== null;
    if (row !== undefined) {
      const { state, version, token } = summary(row);
      return { type, id, state, version, token: fenced ? token : null, fenced, folded: false, events };
    }
    // No row: the type keeps its own projection, so the state is its events' fold.
    const folded = definition.fold(
      definition.initial(id),
      stored.map((event) => ({
        type: event.type,
        data: JSON.parse(event.data) as unknown,
        schemaVersion: Number(event.schema_version),
      })),
    );
    const token = definition.fencing === null ? null : definition.fencing.token(folded.value);
    return { type, id, state: folded.state, version: folded.version, token, fenced, folded: true, events };
  }
}
