import {
  VersionConflict,
  type DeclaredEvent,
  type DeclaredStreamState,
  type JsonObject,
  type StreamDefinition,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { StreamChange, StreamProjection } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import { toStoredEvent, type StoredEvent } from "../sql/events/storedEvent.ts";

/** A declared stream's state as the store keeps it. */
export type AnyDeclaredState = DeclaredStreamState<JsonObject & { readonly state: string }>;

/** One accepted change of a declared stream: its state before, after, and the events between. */
export type DeclaredChange<TState> = StreamChange<DeclaredStreamState<TState>, DeclaredEvent>;

/**
 * A service's own projection of a declared stream, written through Kysely in the transaction of
 * the events (instead of the generic `stream_states` row). Its streams are then loaded by folding
 * their events.
 */
export interface OwnProjection<TState> {
  /** Writes the projection of `changes` (a stream created has `before.version` 0), in `trx`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's own tables: it types them with trx.withTables
  write(trx: Kysely<any>, changes: readonly DeclaredChange<TState>[]): Promise<void>;
  /** Removes every row of this projection, in `trx`: what a rebuild writes again from the log. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's own tables
  clear(trx: Kysely<any>): Promise<void>;
}

/**
 * How the store keeps a declared stream on the one command path: the generic projection (the
 * `stream_states` row: machine state, version, holder token and the folded state as JSON,
 * inserted for a stream's first event and else rewritten only while still at the version decided
 * on), or the service's own projection with streams loaded from their events. Events are written
 * at their declared schema version.
 */
export function declaredProjection<TState extends JsonObject & { readonly state: string }>(
  definition: StreamDefinition<TState>,
  own: OwnProjection<TState> | undefined,
): StreamProjection<DeclaredStreamState<TState>, DeclaredEvent> {
  const { name } = definition;
  if (own !== undefined) {
    return {
      streamType: name,
      idOf: (stream) => stream.id,
      schemaVersion: definition.schemaVersion,
      load: (trx, ids) => foldStreams(trx, definition, ids),
      project: (trx, changes) => own.write(trx, changes),
    };
  }
  return {
    streamType: name,
    idOf: (stream) => stream.id,
    schemaVersion: definition.schemaVersion,
    async load(trx, ids) {
      const found = new Map<string, DeclaredStreamState<TState>>();
      if (ids.length === 0) return found;
      const rows = await trx
        .selectFrom("stream_states")
        .select(["stream_id", "state", "version", "value"])
        .where("stream_type", "=", name)
        .where("stream_id", "in", ids)
        .execute();
      for (const row of rows) {
        found.set(row.stream_id, {
          id: row.stream_id,
          state: row.state,
          version: Number(row.version),
          value: JSON.parse(row.value) as TState,
        });
      }
      return found;
    },
    async project(trx, changes) {
      await writeStates(trx, definition, changes);
    },
  };
}

/** Writes the generic projection rows of `changes`, each rewritten only while still at its `before.version`. */
export async function writeStates<TState extends JsonObject & { readonly state: string }>(
  trx: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
  changes: readonly DeclaredChange<TState>[],
): Promise<void> {
  for (const { before, after, events } of changes) {
    const values = {
      state: after.state,
      version: after.version,
      token: definition.fencing === null ? null : definition.fencing.token(after.value),
      value: JSON.stringify(after.value),
      updated_at: events.at(-1)?.data.at ?? 0,
    };
    if (before.version === 0) {
      await trx
        .insertInto("stream_states")
        .values({ stream_type: definition.name, stream_id: after.id, ...values })
        .execute();
      continue;
    }
    const result = await trx
      .updateTable("stream_states")
      .set(values)
      .where("stream_type", "=", definition.name)
      .where("stream_id", "=", after.id)
      .where("version", "=", before.version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(definition.name, after.id, before.version);
  }
}

/** The streams of `ids` that have events, each the fold of its log (upcast), read in `db` in one query. */
export async function foldStreams<TState extends JsonObject & { readonly state: string }>(
  db: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
  ids: readonly string[],
): Promise<Map<string, DeclaredStreamState<TState>>> {
  const found = new Map<string, DeclaredStreamState<TState>>();
  if (ids.length === 0) return found;
  const rows = await db
    .selectFrom("events")
    .selectAll()
    .where("stream_type", "=", definition.name)
    .where("stream_id", "in", ids)
    .orderBy("stream_id")
    .orderBy("version")
    .execute();
  const byId = new Map<string, StoredEvent[]>();
  for (const row of rows) {
    const events = byId.get(row.stream_id) ?? [];
    events.push(toStoredEvent(row));
    byId.set(row.stream_id, events);
  }
  for (const [id, events] of byId) found.set(id, definition.fold(definition.initial(id), events));
  return found;
}
