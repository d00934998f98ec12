/**
 * verq's statements on PostgreSQL, recorded and replayed: what the SQL of some work costs on its
 * own, with no Kysely, no machine and none of verq's JavaScript. The work (a `JobWorker`'s drain,
 * one round at a time so that its statements run one after another on one connection; or
 * enqueues) runs in one schema while every statement its store sends is recorded, text, name
 * and parameters as it sent them; the same statements are then replayed by a bare `pg.Client`,
 * prepared under the same names, on a copy of the schema taken before the work. The replay
 * writes exactly what verq wrote (its parameters are verq's), so its rate is the limit of
 * verq's statements for one connection, and its CPU per job is the floor under verq's: the rest
 * is verq's own code.
 */
import { JobQueue, JobWorker, openStore } from "@verq/store";
import { admin, createTestDatabase } from "@verq/testing";
import { meterPostgres, pgLoadedBy, type PostgresCost } from "../src/postgres-cost.ts";

/** One statement as the store sent it. */
export interface RecordedStatement {
  readonly text: string;
  /** The name it was prepared under, when it was. */
  readonly name?: string;
  readonly values?: readonly unknown[];
}

interface PgClient {
  query: (this: PgClient, ...args: unknown[]) => unknown;
  connect(): Promise<void>;
  end(): Promise<void>;
}

interface Pg {
  readonly Client: { prototype: PgClient; new (config: { connectionString: string }): PgClient };
}

/** `pg` as verq's store loads it. */
const storePg = (): Pg => pgLoadedBy("@verq/store") as Pg;

/** Runs `work` and returns every statement verq's store sent meanwhile, in order. */
export async function recordStatements(work: () => Promise<void>): Promise<RecordedStatement[]> {
  const proto = storePg().Client.prototype;
  const query = proto.query;
  const recorded: RecordedStatement[] = [];
  proto.query = function (this: PgClient, ...args: unknown[]): unknown {
    const [config, values] = args as [unknown, unknown];
    if (typeof config === "string") recorded.push({ text: config, values: values as unknown[] | undefined });
    else {
      const { text, name, values: given } = config as { text: string; name?: string; values?: unknown[] };
      recorded.push({ text, ...(name === undefined ? {} : { name }), ...(given === undefined ? {} : { values: given }) });
    }
    return query.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = query;
  }
  return recorded;
}

/**
 * Drains `queue` with one `JobWorker` (concurrency `concurrency`, `batchSize` jobs a round,
 * one round at a time). Fails unless every one of `jobs` was done.
 */
export async function drainInRounds(queue: JobQueue, jobs: number, batchSize: number, concurrency: number): Promise<void> {
  const worker = new JobWorker(queue, { owner: "w", concurrency, batchSize, rounds: 1, sender: () => true });
  const report = await worker.drain();
  if (report.ok !== jobs) throw new Error(`the recorded drain finished ${report.ok} of ${jobs}`);
}

/**
 * Copies every row of verq's tables in schema `from` (except the migrations' own) into the same
 * tables of schema `to`, migrated by verq and empty, and moves `to`'s sequences to where
 * `from`'s are: the positions the replay's appends get are the ones the recorded drain got.
 */
export async function copySchema(from: string, to: string): Promise<void> {
  const { rows } = await admin(
    `select tablename from pg_tables where schemaname = '${from}' and tablename not like '%migration%'`,
  );
  const tables = (rows as { tablename: string }[]).map((r) => r.tablename);
  const copies = tables.map((t) => `insert into ${to}."${t}" overriding system value select * from ${from}."${t}";`);
  const { rows: sequences } = await admin(
    `select sequencename, last_value from pg_sequences where schemaname = '${from}' and last_value is not null`,
  );
  const moves = (sequences as { sequencename: string; last_value: string }[]).map(
    (s) => `select setval('${to}."${s.sequencename}"', ${s.last_value});`,
  );
  await admin(`begin; ${copies.join(" ")} ${moves.join(" ")} commit;`);
}

/**
 * Replays `statements` one after another on one new connection to `url` (whose search path
 * names the copy), prepared under the names the store gave them: how long it took, and what it
 * cost this process and the connection's backend (`meterPostgres`).
 */
export async function replayStatements(
  url: string,
  statements: readonly RecordedStatement[],
): Promise<{ ms: number; cost: PostgresCost }> {
  const client = new (storePg().Client)({ connectionString: url });
  await client.connect();
  try {
    const stop = meterPostgres();
    const start = performance.now();
    for (const s of statements) await client.query(s);
    const ms = performance.now() - start;
    return { ms, cost: stop() };
  } finally {
    await client.end();
  }
}

/** A replay of the recorded statements, all of them or those `keep` keeps. */
export interface ReplayVariant {
  readonly name: string;
  readonly keep?: (statement: RecordedStatement) => boolean;
}

/** What one variant's replay took and cost. */
export interface ReplayResult {
  readonly ms: number;
  readonly cost: PostgresCost;
  /** The jobs in the copy after the replay, by state. */
  readonly states: Readonly<Record<string, number>>;
}

/**
 * A schema of verq's with what `prepare` puts in it (not recorded), a copy of it for each
 * variant, `work` recorded on the first, then each variant replayed on its copy, in the order
 * given. Every schema is dropped afterwards.
 */
export async function recordAndReplay(
  poolSize: number,
  prepare: (queue: JobQueue) => Promise<void>,
  work: (queue: JobQueue) => Promise<void>,
  variants: readonly ReplayVariant[],
): Promise<Map<string, ReplayResult>> {
  const source = await createTestDatabase("postgres");
  const copies = await Promise.all(variants.map(() => createTestDatabase("postgres")));
  try {
    const store = await openStore({ url: source.db, poolSize });
    let statements: RecordedStatement[];
    try {
      const queue = new JobQueue(store);
      await prepare(queue);
      for (const copy of copies) {
        // Each copy's tables are made by verq's migrations, as a store's first open makes them.
        await (await copy.open()).close();
        await copySchema(source.schema!, copy.schema!);
      }
      statements = await recordStatements(() => work(queue));
    } finally {
      await store.close();
    }
    const results = new Map<string, ReplayResult>();
    for (const [i, variant] of variants.entries()) {
      const copy = copies[i]!;
      const kept = variant.keep === undefined ? statements : statements.filter(variant.keep);
      const { ms, cost } = await replayStatements(copy.db, kept);
      const { rows } = await admin(`select state, count(*)::int as n from ${copy.schema!}.jobs group by state`);
      const states = Object.fromEntries((rows as { state: string; n: number }[]).map((r) => [r.state, r.n]));
      results.set(variant.name, { ms, cost, states });
    }
    return results;
  } finally {
    await Promise.all([source, ...copies].map((d) => d.dispose()));
  }
}
