import { VERQ_TABLES } from "@verq/store";
import { counted, runCommand, withStore } from "./common.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The action of `verq init`, loaded by ./init-commands.ts when it runs: the store, nothing else.
 */

/** The migration that makes a store: an open that applied it created the store. */
const FIRST_MIGRATION = "001-initial";

/**
 * `verq init`: opens the store at `--db`, creating it (a SQLite file, or verq's tables in the
 * PostgreSQL database or schema) or bringing it up to date, and prints what it did:
 * `created a verq store at …`, `brought the verq store at … up to date`, or `… is up to date`.
 * With `--json`: `{"db","schema","created","applied","tables"}`, `db` as the store names itself
 * (never a password), `schema` the PostgreSQL schema that holds the tables (null on SQLite).
 */
export const init = (context: CliContext, o: DbOptions): Promise<void> =>
  runCommand(context, o, () =>
    withStore(o.db, async (store) => {
      const applied = [...store.appliedMigrations];
      const created = applied.includes(FIRST_MIGRATION);
      // The schema on PostgreSQL (where the search path put the tables); none on SQLite.
      const schema = (await store.dialect.migrations.migrationSchema(store.db)) ?? null;
      const where = schema === null ? store.path : `${store.path}, schema ${schema}`;
      const report = { db: store.path, schema, created, applied, tables: [...VERQ_TABLES] };
      const range = applied.length === 1 ? `(${applied[0]})` : `(${applied[0]} … ${applied.at(-1)})`;
      emit(context.io, o.json === true, report, () =>
        created
          ? `created a verq store at ${where}: applied ${counted(applied.length, "migration")} ${range}; tables: ${VERQ_TABLES.join(", ")}`
          : applied.length > 0
            ? `brought the verq store at ${where} up to date: applied ${counted(applied.length, "migration")} ${range}`
            : `the verq store at ${where} is up to date: nothing to do`,
      );
    }),
  );
