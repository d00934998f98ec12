import type { DeclaredStreamState, JsonObject, StreamDefinition } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { toStoredEvent } from "../sql/events/storedEvent.ts";
import { writeStates, type DeclaredChange, type OwnProjection } from "./declared-projection.ts";

/** Streams folded per page of a rebuild or a check. */
const PAGE = 500;

/** A stream whose generic projection is not the fold of its log. */
export interface DeclaredProblem {
  readonly streamId: string;
  /** `missing` (events, no row), `orphan` (a row, no events) or `differs` (state, version, token or value). */
  readonly problem: "missing" | "orphan" | "differs";
}

type State = JsonObject & { readonly state: string };

/**
 * Recomputes a declared stream type's projection from its log, in `trx`: the projection is
 * cleared and every stream written again as created by all its events (upcast). Returns how
 * many streams it wrote.
 */
export async function rebuildDeclared<TState extends State>(
  trx: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
  own: OwnProjection<TState> | undefined,
): Promise<number> {
  if (own === undefined) await trx.deleteFrom("stream_states").where("stream_type", "=", definition.name).execute();
  else await own.clear(trx);
  let written = 0;
  for await (const folded of foldPages(trx, definition)) {
    const changes: DeclaredChange<TState>[] = folded.map(({ state, events }) => ({
      before: definition.initial(state.id),
      after: state,
      events,
    }));
    if (own === undefined) await writeStates(trx, definition, changes);
    else await own.write(trx, changes);
    written += changes.length;
  }
  return written;
}

/** Compares each stream's generic projection row with the fold of its log. */
export async function checkDeclaredStates<TState extends State>(
  db: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
): Promise<DeclaredProblem[]> {
  const problems: DeclaredProblem[] = [];
  const seen = new Set<string>();
  for await (const folded of foldPages(db, definition)) {
    const ids = folded.map(({ state }) => state.id);
    const rows = await db
      .selectFrom("stream_states")
      .select(["stream_id", "state", "version", "token", "value"])
      .where("stream_type", "=", definition.name)
      .where("stream_id", "in", ids)
      .execute();
    const byId = new Map(rows.map((row) => [row.stream_id, row]));
    for (const { state } of folded) {
      seen.add(state.id);
      const row = byId.get(state.id);
      if (row === undefined) {
        problems.push({ streamId: state.id, problem: "missing" });
        continue;
      }
      const token = definition.fencing === null ? null : definition.fencing.token(state.value);
      const same =
        row.state === state.state &&
        Number(row.version) === state.version &&
        (row.token === null ? null : Number(row.token)) === token &&
        row.value === JSON.stringify(state.value);
      if (!same) problems.push({ streamId: state.id, problem: "differs" });
    }
  }
  const rows = await db.selectFrom("stream_states").select("stream_id").where("stream_type", "=", definition.name).execute();
  for (const row of rows) if (!seen.has(row.stream_id)) problems.push({ streamId: row.stream_id, problem: "orphan" });
  return problems;
}

/** Every stream of the type, a page of streams at a time in id order, each folded from its events. */
async function* foldPages<TState extends State>(
  db: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
): AsyncGenerator<{ state: DeclaredStreamState<TState>; events: DeclaredChange<TState>["events"] }[]> {
  let after = "";
  for (;;) {
    const ids = (
      await db
        .selectFrom("events")
        .select("stream_id")
        .distinct()
        .where("stream_type", "=", definition.name)
        .where("stream_id", ">", after)
        .orderBy("stream_id")
        .limit(PAGE)
        .execute()
    ).map((row) => row.stream_id);
    if (ids.length === 0) return;
    const rows = await db
      .selectFrom("events")
      .selectAll()
      .where("stream_type", "=", definition.name)
      .where("stream_id", "in", ids)
      .orderBy("stream_id")
      .orderBy("version")
      .execute();
    const byId = new Map<string, ReturnType<typeof toStoredEvent>[]>();
    for (const row of rows) {
      const event = toStoredEvent(row);
      const list = byId.get(event.streamId) ?? [];
      list.push(event);
      byId.set(event.streamId, list);
    }
    yield ids.map((id) => {
      const stored = byId.get(id) ?? [];
      const state = definition.fold(definition.initial(id), stored);
      const events = stored.map((event) => ({
        type: event.type,
        data: definition.upcast(
          event.type,
          event.schemaVersion,
          event.data as JsonObject,
        ) as DeclaredChange<TState>["events"][number]["data"],
      }));
      return { state, events };
    });
    after = ids.at(-1) as string;
  }
}
