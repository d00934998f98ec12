import type { JobState } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";

/** One `(queue, kind, state)` of the `jobs` projection: how many jobs, and the lease expiries they went through. */
export interface JobGroupRow {
  readonly queue: string;
  readonly kind: string | null;
  readonly state: JobState;
  readonly count: number;
  readonly leaseExpiries: number;
}

/** One `(queue, kind, failure class)` of the dead jobs: how many died with that class as their last failure (`null`: none recorded). */
export interface DeadFailureRow {
  readonly queue: string;
  readonly kind: string | null;
  readonly errorClass: string | null;
  readonly count: number;
}

/**
 * The jobs by queue, kind and state (with their lease expiries), and the dead ones by queue, kind
 * and the class of their last failure: two aggregate queries over the whole projection, one row
 * per group that has jobs. The failure class is read from the JSON of `last_failure` by the
 * engine's own JSON function ({@link StoreDialect.statements}`.jsonText`).
 */
export async function selectJobGroups(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
): Promise<{ groups: JobGroupRow[]; deadFailures: DeadFailureRow[] }> {
  const groupRows = await db
    .selectFrom("jobs")
    .select([
      "queue",
      "kind",
      "state",
      (eb) => eb.fn.countAll<number>().as("n"),
      (eb) => eb.fn.sum<number>("lease_expiries").as("expiries"),
    ])
    // On SQLite in the order of `jobs_counts`, which holds every column read: the index alone is read.
    .groupBy(["queue", "kind", "state"])
    .execute();
  const errorClass = dialect.statements.jsonText("last_failure", "errorClass");
  const failureRows = await db
    .selectFrom("jobs")
    .select(["queue", "kind", errorClass.as("error_class"), (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "=", "dead")
    .groupBy(["queue", "kind", errorClass])
    .execute();
  return {
    groups: groupRows.map((row) => ({
      queue: row.queue,
      kind: row.kind,
      state: row.state as JobState,
      count: Number(row.n),
      leaseExpiries: Number(row.expiries ?? 0),
    })),
    deadFailures: failureRows.map((row) => ({
      queue: row.queue,
      kind: row.kind,
      errorClass: row.error_class,
      count: Number(row.n),
    })),
  };
}
