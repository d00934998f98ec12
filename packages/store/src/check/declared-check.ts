import { coerceError, type DeclaredStreamState, type JsonObject, type AnyStreamDefinition } from "@verq/core";
import { streamName } from "./finding.ts";
import { describeDifferences, eachPage, num, type StreamTypeCheck } from "./stream-check.ts";

/** One declared stream folded so far. */
export interface DeclaredStreamAudit {
  readonly id: string;
  state: DeclaredStreamState<JsonObject & { readonly state: string }>;
  broken: boolean;
}

/**
 * A declared stream type with the generic projection (`defineStream`, `declareStream`): the fold
 * of each stream through its definition, every event upcast first (what the store projects and
 * rebuilds with), against its `stream_states` row (machine state, version, holder token and the
 * folded state), and `stream_states` rows of the type that no stream explains.
 */
export function declaredCheck(definition: AnyStreamDefinition): StreamTypeCheck<DeclaredStreamAudit> {
  const type = definition.name;
  return {
    streamType: type,
    begin: (id) => ({ id, state: definition.initial(id), broken: false }),

    step(s, stored, report) {
      if (s.broken) return;
      try {
        s.state = definition.fold(s.state, [stored]);
      } catch (error) {
        s.broken = true;
        report("EVENT_INVALID", streamName(type, s.id), `v${stored.version} ${stored.type}: ${coerceError(error).message}`);
      }
    },

    async settle(db, streams, report) {
      const ids = streams.map((s) => s.id);
      const rows =
        ids.length === 0
          ? []
          : await db
              .selectFrom("stream_states")
              .selectAll()
              .where("stream_type", "=", type)
              .where("stream_id", "in", ids)
              .execute();
      const byId = new Map(rows.map((row) => [row.stream_id, row]));
      for (const s of streams) {
        if (s.broken) continue;
        const name = streamName(type, s.id);
        const row = byId.get(s.id);
        if (row === undefined) {
          report("PROJECTION_MISSING", name, `no stream_states row for a stream of ${s.state.version} events`);
          continue;
        }
        const fold = {
          state: s.state.state,
          version: s.state.version,
          token: definition.fencing === null ? null : definition.fencing.token(s.state.value),
          value: JSON.stringify(s.state.value),
        };
        const differences = describeDifferences(
          { state: row.state, version: num(row.version), token: num(row.token), value: row.value },
          fold,
          ["state", "version", "token", "value"],
          ["value"],
        );
        if (differences.length > 0) report("PROJECTION_MISMATCH", name, `stream_states row: ${differences.join(", ")}`);
      }
    },

    async orphans(db, batchSize, report) {
      await eachPage(
        batchSize,
        (after, limit) => {
          let query = db
            .selectFrom("stream_states as s")
            .select("s.stream_id")
            .where("s.stream_type", "=", type)
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom("events as e")
                    .select("e.position")
                    .where("e.stream_type", "=", type)
                    .whereRef("e.stream_id", "=", "s.stream_id"),
                ),
              ),
            );
          if (after !== null) query = query.where("s.stream_id", ">", after);
          return query.orderBy("s.stream_id").limit(limit).execute();
        },
        (row) => row.stream_id,
        (row) => report("PROJECTION_ORPHAN", streamName(type, row.stream_id), "stream_states row without events"),
      );
    },
  };
}
