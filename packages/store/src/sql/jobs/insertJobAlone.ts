import { JOB_STREAM } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readBatch } from "../batchValues.ts";
import { columnsAndValues, jobToRow } from "./jobRow.ts";
import type { NewJobRow } from "./insertJobRows.ts";

/** The first event of a new job, as the command path appends it. */
export interface NewJobEvent {
  readonly type: string;
  readonly data: string;
  readonly at: number;
}

/**
 * A new job written by one statement that is a whole transaction by itself (PostgreSQL's
 * data-modifying `with`, run outside any transaction: one round trip): its first event appended
 * insert-or-nothing (the UNIQUE arbiter decides, as on the command path) unless the id is in
 * the archive (a pruned id is decided from its archive row, on the ordinary path), its `jobs`
 * row inserted with that event's position, and `wake` (the store's wake-up, delivered on commit
 * only) sent when the event was written. Returns the event's position, or null when nothing was
 * written: the job or its archive row was there, and the caller decides again on the ordinary
 * path. Only where `dialect.statements.standaloneWrites` holds.
 */
export async function insertJobAlone(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  created: Omit<NewJobRow, "enqueuePosition">,
  event: NewJobEvent,
  wake: { readonly channel: string; readonly payload: string },
): Promise<number | null> {
  const { names, types, values } = columnsAndValues([jobToRow(created.job, created.payloadJson, 0)]);
  // The row's columns come after the event's three and the wake-up's two; its position comes from the event.
  const column = (name: string) => `v.column${names.indexOf(name) + 6}`;
  const id = column("id");
  const rowColumns = names.map((name) => (name === "enqueue_position" ? "e.position" : column(name))).join(", ");
  const [row] = await readBatch(
    db,
    dialect,
    ["text", "text", "bigint", "text", "text", ...types],
    [[event.type, event.data, event.at, wake.channel, wake.payload, ...(values[0] ?? [])]],
    (v) =>
      `with v as (select * from ${v.table("v")}), ` +
      `e as (insert into events (stream_type, stream_id, version, type, data, at_ms) ` +
      `select '${JOB_STREAM}', ${id}, 1, v.column1, v.column2, v.column3 from v ` +
      `where not exists (select 1 from job_archive a where a.id = ${id}) ` +
      `on conflict (stream_type, stream_id, version) do nothing returning position), ` +
      `j as (insert into jobs (${names.join(", ")}) select ${rowColumns} from v, e), ` +
      `w as (select pg_notify(v.column4, v.column5) from v, e) ` +
      `select e.position, (select count(*) from w) from e`,
  );
  return row === undefined ? null : Number(row[0]);
}
