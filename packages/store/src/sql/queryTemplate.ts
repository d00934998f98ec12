import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from "kysely";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";

const MARK = "\u0000verq-param:";

/** A statement compiled once, and where each named value goes among its parameters. */
interface Template {
  readonly sql: string;
  readonly names: readonly string[];
}

const templates = new WeakMap<StoreDialect, Map<string, Template>>();

/**
 * Runs a Kysely query built once per dialect and `shape`, with new values each time. The first
 * call builds it with a marker in place of every value (`param(name)`), compiles it with `db`'s
 * dialect, and keeps the SQL text and where each named value went; every later call binds
 * `values` in that order to the same text, which the SQLite store's statement cache prepares
 * once. Building and compiling a Kysely query costs more than SQLite's own work for a lookup by
 * key, and the relay runs several per request. Plugins see the result, not the query (as with
 * `executeBatch`). `shape` must name everything the query's text depends on (e.g. how many
 * GUIDs an `in` list holds).
 */
export async function executeTemplate<R>(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  shape: string,
  build: (param: <T>(name: string) => T) => Compilable<R>,
  values: Readonly<Record<string, unknown>>,
): Promise<QueryResult<R>> {
  let byShape = templates.get(dialect);
  if (byShape === undefined) templates.set(dialect, (byShape = new Map<string, Template>()));
  let template = byShape.get(shape);
  if (template === undefined) {
    const compiled = build(<T>(name: string) => `${MARK}${name}` as unknown as T).compile();
    const names = compiled.parameters.map((p) => {
      if (typeof p !== "string" || !p.startsWith(MARK)) throw new Error(`query ${shape} has a value that is not a parameter`);
      return p.slice(MARK.length);
    });
    template = { sql: compiled.sql, names };
    byShape.set(shape, template);
  }
  const parameters = template.names.map((name) => {
    if (!(name in values)) throw new Error(`query ${shape} needs a value for ${name}`);
    return values[name];
  });
  return db.executeQuery<R>(CompiledQuery.raw(template.sql, parameters));
}
