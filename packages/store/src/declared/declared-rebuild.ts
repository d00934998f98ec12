import type { DeclaredEvent, JsonObject, StreamDefinition } from "@verq/core";
import type { Kysely } from "kysely";
import { declaredCheck, type DeclaredStreamAudit } from "../check/declared-check.ts";
import type { FindingCode } from "../check/finding.ts";
import type { VerqDatabase } from "../schema.ts";
import { toStoredEvent, type StoredEvent } from "../sql/events/storedEvent.ts";
import { writeStates, type DeclaredChange, type OwnProjection } from "./declared-projection.ts";
import { byStreamType, upcastEvents } from "./upcast-events.ts";

/** Streams read per page of a rebuild or a check. */
const PAGE = 500;

/** A stream whose generic projection is not the fold of its log. */
export interface DeclaredProblem {
  readonly streamId: string;
  /**
   * `missing` (events, no row), `orphan` (a row, no events), `differs` (state, version, token or
   * value) or `invalid` (an event its definition cannot fold).
   */
  readonly problem: "missing" | "orphan" | "differs" | "invalid";
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
  const definitions = byStreamType([definition]);
  let written = 0;
  for await (const page of streamPages(trx, definition.name)) {
    const changes: DeclaredChange<TState>[] = page.map(({ id, events }) => ({
      before: definition.initial(id),
      after: definition.fold(definition.initial(id), events),
      events: upcastEvents(events, definitions).map(({ type, data }) => ({ type, data: data as DeclaredEvent["data"] })),
    }));
    if (own === undefined) await writeStates(trx, definition, changes);
    else await own.write(trx, changes);
    written += changes.length;
  }
  return written;
}

const PROBLEMS: Partial<Record<FindingCode, DeclaredProblem["problem"]>> = {
  PROJECTION_MISSING: "missing",
  PROJECTION_ORPHAN: "orphan",
  PROJECTION_MISMATCH: "differs",
  EVENT_INVALID: "invalid",
};

/**
 * Compares each stream's generic projection row with the fold of its log: the audit
 * `checkStore` runs for a declared stream type ({@link declaredCheck}), on this type alone.
 */
export async function checkDeclaredStates<TState extends State>(
  db: Kysely<VerqDatabase>,
  definition: StreamDefinition<TState>,
): Promise<DeclaredProblem[]> {
  const problems: DeclaredProblem[] = [];
  const prefix = `${definition.name}/`;
  const report = (code: FindingCode, stream: string) => {
    const problem = PROBLEMS[code];
    if (problem !== undefined) problems.push({ streamId: stream.slice(prefix.length), problem });
  };
  const check = declaredCheck(definition);
  for await (const page of streamPages(db, definition.name)) {
    const audits: DeclaredStreamAudit[] = page.map(({ id, events }) => {
      const audit = check.begin(id);
      for (const event of events) check.step(audit, event, report);
      return audit;
    });
    await check.settle(db, audits, report);
  }
  await check.orphans(db, PAGE, report);
  return problems;
}

/** Every stream of the type with its events in version order, a page of streams at a time in id order. */
async function* streamPages(
  db: Kysely<VerqDatabase>,
  streamType: string,
): AsyncGenerator<{ id: string; events: StoredEvent[] }[]> {
  let after = "";
  for (;;) {
    const ids = (
      await db
        .selectFrom("events")
        .select("stream_id")
        .distinct()
        .where("stream_type", "=", streamType)
        .where("stream_id", ">", after)
        .orderBy("stream_id")
        .limit(PAGE)
        .execute()
    ).map((row) => row.stream_id);
    if (ids.length === 0) return;
    const rows = await db
      .selectFrom("events")
      .selectAll()
      .where("stream_type", "=", streamType)
      .where("stream_id", "in", ids)
      .orderBy("stream_id")
      .orderBy("version")
      .execute();
    const byId = new Map<string, StoredEvent[]>(ids.map((id) => [id, []]));
    for (const row of rows) byId.get(row.stream_id)?.push(toStoredEvent(row));
    yield ids.map((id) => ({ id, events: byId.get(id) ?? [] }));
    after = ids.at(-1) as string;
  }
}
