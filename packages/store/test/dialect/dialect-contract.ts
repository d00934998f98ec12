import { isVerqError } from "@verq/core";
import type { TestDatabase } from "@verq/testing";
import { CompiledQuery, sql, type Kysely } from "kysely";
import { afterEach, expect, it } from "vitest";
import type { BatchColumnType, StoreDialect, VerqStore } from "../../src/index.ts";
import { readRows } from "../../src/sql/readRows.ts";

/**
 * An engine as the dialect contract meets it: how a test gets a database of its own on it, and
 * how it provokes the faults that cannot be written in portable SQL. A new engine provides one
 * of these and passes {@link dialectContract}.
 */
export interface DialectEngine {
  /** For test names. */
  readonly name: string;
  /** A fresh, empty database of the test's own; its `open` opens a store (another connection) on it. */
  create(): Promise<TestDatabase>;
  /** Leaves `store`'s database room for only a little more, so that writes soon fail for want of it. */
  fill(database: TestDatabase, store: VerqStore): Promise<void>;
  /** Damages the closed database where a full read meets it; absent where no damage can be made cheaply (a server's files). */
  readonly damage?: (database: TestDatabase) => Promise<void>;
}

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const untyped = (store: VerqStore): Db => store.db as Db;
const dialectOf = (store: VerqStore): StoreDialect => store.dialect;

/** Settles to `error` or undefined. */
const failureOf = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => undefined,
    (error: unknown) => error ?? new Error("rejected without an error"),
  );

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds, checking every 20 ms, for at most `ms`. */
async function until(condition: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("the condition never held");
    await pause(20);
  }
}

/** A table of the test's own, with a key, a unique column and one column of each batch type. */
async function scratchTable(store: VerqStore, name = "contract_rows"): Promise<void> {
  await untyped(store)
    .schema.createTable(name)
    .addColumn("k", "text", (c) => c.primaryKey())
    .addColumn("u", "text", (c) => c.unique())
    .addColumn("i", "integer")
    .addColumn("b", "bigint")
    .addColumn("n", "numeric")
    .execute();
}

const insertKey = (db: Db, k: string, u: string = k) => sql`insert into contract_rows (k, u) values (${k}, ${u})`.execute(db);
/** Runs every query of a batch and returns all their rows. */
async function executeAll(store: VerqStore, queries: Iterable<CompiledQuery>): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const query of queries) rows.push(...(await untyped(store).executeQuery<Record<string, unknown>>(query)).rows);
  return rows;
}

const keys = async (db: Db) =>
  (await sql<{ k: string }>`select k from contract_rows order by k`.execute(db)).rows.map((row) => row.k);

/**
 * The contract every store dialect must meet, each capability checked on its own on real
 * databases of `engine`: statements and transactions (batches and their splitting, key sets, the hot
 * path, the isolated statement, the exclusive section, the claim lock), error classification
 * (unique violations, busy and deadlocked transactions, full and damaged databases), event
 * positions with a transaction in flight, wake-ups, maintenance and the migration lock.
 * Call it inside a `describe`.
 */
export function dialectContract(engine: DialectEngine): void {
  const databases: TestDatabase[] = [];
  const stores: VerqStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0).reverse()) await store.close();
    for (const database of databases.splice(0)) await database.dispose();
  });
  const fresh = async (): Promise<TestDatabase> => {
    const database = await engine.create();
    databases.push(database);
    return database;
  };
  const openOn = async (database: TestDatabase, busyTimeoutMs?: number): Promise<VerqStore> => {
    const store = await database.open(busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
    stores.push(store);
    return store;
  };
  const open = async (): Promise<VerqStore> => openOn(await fresh());

  // Statements and transactions.

  it("statements: a batch binds every column type and keeps it typed, in row order, as INSERT rows, a FROM item, a key set and a join", async () => {
    const store = await open();
    await scratchTable(store);
    const { statements } = dialectOf(store);
    const types: BatchColumnType[] = ["text", "integer", "bigint", "numeric"];
    const rows: (string | number | null)[][] = [
      ["plain", 0, 0, 0],
      ['it\'s "quoted" ; -- not SQL, {braced}, back\\slash', -2_147_483_648, Number.MAX_SAFE_INTEGER, 12.5],
      ["ünïcødé ✓", 2_147_483_647, -Number.MAX_SAFE_INTEGER, -0.25],
      ["NULL", null, null, null],
      ["", null, null, null],
    ];
    const keyed = rows.map((row, r) => [`k${r}`, ...row]);
    await executeAll(
      store,
      statements.batch(["text", ...types], keyed, (v) => `insert into contract_rows (k, u, i, b, n) ${v.rows}`),
    );
    const stored = await sql<Record<string, unknown>>`select u, i, b, n from contract_rows order by k`.execute(store.db);
    const asNumber = (v: unknown) => (v === null ? null : Number(v));
    expect(stored.rows.map((row) => [row.u, asNumber(row.i), asNumber(row.b), asNumber(row.n)])).toEqual(rows);

    // Selected straight from the batch, each column is of its type: arithmetic on it works.
    const computed = await executeAll(
      store,
      statements.batch(
        types,
        [
          ["a", 1, 9_007_199_254_740_000, 1.5],
          ["b", 2, 10, 0.5],
        ],
        (v) =>
          `select v.column1 || '!' as t, v.column2 + 1 as i, v.column3 - 1 as b, v.column4 * 2 as n from ${v.table("v")} order by v.column2`,
      ),
    );
    expect(computed.map((row) => [row.t, Number(row.i), Number(row.b), Number(row.n)])).toEqual([
      ["a!", 2, 9_007_199_254_739_999, 3],
      ["b!", 3, 9, 1],
    ]);

    // A key set of one column, and a join on a key: only the rows named, only where the other column agrees.
    const picked = await executeAll(
      store,
      statements.batch(
        ["text"],
        [["k1"], ["k3"], ["absent"]],
        (v) => `select k from contract_rows where ${v.contains("k")} order by k`,
      ),
    );
    expect(picked.map((row) => row.k)).toEqual(["k1", "k3"]);
    const updated = await executeAll(
      store,
      statements.batch(
        ["integer", "text", "text"],
        [
          [7, "k0", "plain"],
          [8, "k2", "not its u"],
          [9, "absent", ""],
        ],
        (v) =>
          `update contract_rows set i = v.column1 from ${v.table("v")} where ${v.matches("contract_rows.k", "v", 2)} and contract_rows.u = v.column3 returning contract_rows.k`,
      ),
    );
    expect(updated.map((row) => row.k)).toEqual(["k0"]);
  });

  it("statements: a batch of more rows than one statement takes is split, every row bound once, in order", async () => {
    const store = await open();
    const { statements } = dialectOf(store);
    const types: BatchColumnType[] = ["integer", "integer", "text", "bigint"];
    const count = 2_501;
    const rows = Array.from({ length: count }, (_, r) => [r, r % 7, `r${r}`, r * 3]);
    const queries = [
      ...statements.batch(
        types,
        rows,
        (v) => `select count(*) as n, sum(v.column1) as total, min(v.column1) as first from ${v.table("v")}`,
      ),
    ];
    expect(queries.length).toBeGreaterThan(1);
    let seen = 0;
    for (const query of queries) {
      const { rows: result } = await untyped(store).executeQuery<{ n: unknown; total: unknown; first: unknown }>(query);
      const n = Number(result[0]?.n);
      // Each statement takes the rows after the last one's, and all of them.
      expect(Number(result[0]?.first)).toBe(seen);
      expect(Number(result[0]?.total)).toBe((n * (2 * seen + n - 1)) / 2);
      seen += n;
    }
    expect(seen).toBe(count);
    expect([...statements.batch(types, [], () => "select 1")]).toEqual([]);
    expect(() => [...statements.batch(types, [[1, 2, "three"]], () => "select 1")]).toThrow("expected 4");
  });

  it("statements: isOneOf matches any of its texts, quotes and all, and none of an empty list; a claim limit takes at least its rows", async () => {
    const store = await open();
    await scratchTable(store);
    const { statements } = dialectOf(store);
    const odd = ['a "quoted", {braced} \\ one', "NULL", "", "plain"];
    for (const [i, k] of odd.entries()) await insertKey(untyped(store), k, `u${i}`);
    const among = async (values: readonly string[]) =>
      (
        await readRows(
          store.db,
          store.dialect,
          statements.fixed(
            sql`select k from contract_rows where ${statements.isOneOf("k", values)} order by u`.compile(store.db),
          ),
        )
      ).map(([k]) => k);
    expect(await among(odd)).toEqual(odd);
    expect(await among(["NULL", "absent"])).toEqual(["NULL"]);
    expect(await among([])).toEqual([]);
    for (const n of [1, 3, 4]) {
      const limited = await sql`select k from contract_rows order by u limit ${statements.claimLimit(n)}`.execute(store.db);
      expect(limited.rows.length).toBeGreaterThanOrEqual(n);
    }
  });

  it("statements: the hot path, where there is one, reads only inside the store's own open transaction, the rows Kysely reads", async () => {
    const store = await open();
    await scratchTable(store);
    const { hotPath } = dialectOf(store).statements;
    const query = CompiledQuery.raw("select k, u from contract_rows order by k", []);
    await store.transaction(async (trx) => {
      await insertKey(trx, "a", "x");
      await insertKey(trx, "b", "y");
      if (hotPath !== undefined) expect(hotPath.holds(trx)).toBe(true);
      expect(await readRows(trx, store.dialect, query)).toEqual([
        ["a", "x"],
        ["b", "y"],
      ]);
    });
    if (hotPath !== undefined) expect(hotPath.holds(store.db)).toBe(false);
    expect(await readRows(store.db, store.dialect, query)).toEqual([
      ["a", "x"],
      ["b", "y"],
    ]);
  });

  it("statements: after an isolated statement fails, its transaction goes on and commits the rest", async () => {
    const store = await open();
    await scratchTable(store);
    const { statements, errors } = dialectOf(store);
    await store.db.transaction().execute(async (trx) => {
      await insertKey(trx, "a");
      expect(await statements.isolated(trx, () => insertKey(trx, "b").then(() => "inserted"))).toBe("inserted");
      const refused = await failureOf(statements.isolated(trx, () => insertKey(trx, "a")));
      expect(errors.isUniqueViolation(refused)).toBe(true);
      await insertKey(trx, "c");
    });
    expect(await keys(untyped(store))).toEqual(["a", "b", "c"]);
  });

  it("statements: transactions that name one topic exclusive run one after the other", async () => {
    const store = await open();
    const { statements } = dialectOf(store);
    const log: string[] = [];
    const firstInside = signal();
    const section = (who: string, inside?: () => void) =>
      store.db.transaction().execute(async (trx) => {
        await statements.exclusive(trx, "contract.topic");
        log.push(`${who} in`);
        inside?.();
        // Room for the other to come in, if the section let it.
        await pause(150);
        log.push(`${who} out`);
      });
    const first = section("first", firstInside.fire);
    await firstInside.promise;
    const second = section("second");
    await Promise.all([first, second]);
    expect(log).toEqual(["first in", "first out", "second in", "second out"]);
  });

  it("statements: candidates selected with the claim lock go to one of two claiming transactions only", async () => {
    // One store: its connections (a pool, or SQLite's one connection) are the claimers' own.
    const one = await open();
    await scratchTable(one);
    for (let i = 0; i < 10; i++) await insertKey(untyped(one), `c${i}`);
    const { statements } = dialectOf(one);
    const claim = (store: VerqStore, selected?: () => void, hold?: Promise<unknown>) =>
      store.db.transaction().execute(async (trx) => {
        await sql.raw(statements.withClaimSettings("select 1 as one")).execute(trx);
        const { rows } = await sql<{
          k: string;
        }>`select k from contract_rows order by k limit 3 ${sql.raw(statements.claimLockSuffix)}`.execute(trx);
        selected?.();
        await hold;
        for (const { k } of rows) await sql`delete from contract_rows where k = ${k}`.execute(trx);
        return rows.map((row) => row.k);
      });
    const firstSelected = signal();
    const secondSelected = signal();
    // The first holds its candidates until the second has selected too, where the engine lets both run at once.
    const first = claim(one, firstSelected.fire, Promise.race([secondSelected.promise, pause(1_000)]));
    await firstSelected.promise;
    const second = claim(one, secondSelected.fire);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toHaveLength(3);
    expect(b).toHaveLength(3);
    expect(a.filter((k) => b.includes(k))).toEqual([]);
  });

  it("statements: jsonText reads a string member of JSON kept as text, null for a null column or member, and groups by it", async () => {
    const store = await open();
    await scratchTable(store);
    const rows: [string, string | null][] = [
      ["a", JSON.stringify({ errorClass: "TypeError", code: null })],
      ["b", JSON.stringify({ code: "E1", errorClass: "TypeError" })],
      ["c", JSON.stringify({ errorClass: 'It\'s "quoted"', code: "E2" })],
      ["d", JSON.stringify({ code: "E3" })],
      ["e", null],
    ];
    for (const [k, u] of rows) await sql`insert into contract_rows (k, u) values (${k}, ${u})`.execute(untyped(store));
    const { statements } = dialectOf(store);
    const errorClass = statements.jsonText("u", "errorClass");
    const code = statements.jsonText("u", "code");
    const read = await untyped(store)
      .selectFrom("contract_rows")
      .select(["k", errorClass.as("c"), code.as("code")])
      .orderBy("k")
      .execute();
    expect(read).toEqual([
      { k: "a", c: "TypeError", code: null },
      { k: "b", c: "TypeError", code: "E1" },
      { k: "c", c: 'It\'s "quoted"', code: "E2" },
      { k: "d", c: null, code: "E3" },
      { k: "e", c: null, code: null },
    ]);
    const grouped = await untyped(store)
      .selectFrom("contract_rows")
      .select([errorClass.as("c"), (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy(errorClass)
      .execute();
    const counts = Object.fromEntries(grouped.map((row: { c: string | null; n: number }) => [String(row.c), Number(row.n)]));
    expect(counts).toEqual({ TypeError: 2, 'It\'s "quoted"': 1, null: 2 });
  });

  // Errors.

  it("errors: a duplicate primary key or unique value is a unique violation, not busy and no store fault; other errors are neither", async () => {
    const store = await open();
    await scratchTable(store);
    const { errors } = dialectOf(store);
    await insertKey(untyped(store), "a", "x");
    for (const duplicate of [() => insertKey(untyped(store), "a", "y"), () => insertKey(untyped(store), "b", "x")]) {
      const error = await failureOf(duplicate());
      expect(errors.isUniqueViolation(error), String(error)).toBe(true);
      expect(errors.isBusy(error)).toBe(false);
      expect(errors.storeError(error)).toBeUndefined();
    }
    for (const other of [
      () => sql`insert into contract_missing (k) values ('a')`.execute(store.db),
      () => sql`select nothing from contract_rows`.execute(store.db),
    ]) {
      const error = await failureOf(other());
      expect(error).toBeDefined();
      expect(errors.isUniqueViolation(error), String(error)).toBe(false);
      expect(errors.isBusy(error), String(error)).toBe(false);
      expect(errors.storeError(error)).toBeUndefined();
    }
    expect(errors.isUniqueViolation(new Error("duplicate"))).toBe(false);
    expect(errors.isBusy(new Error("busy"))).toBe(false);
  });

  it("errors: of two transactions that write the same rows in opposite orders, every one that fails is busy, and run again it commits", async () => {
    const database = await fresh();
    const one = await openOn(database);
    // Gives up quickly where a writer waits for a lock (SQLite).
    const other = await openOn(database, 100);
    await scratchTable(one);
    await insertKey(untyped(one), "r1");
    await insertKey(untyped(one), "r2");
    const touch = (trx: Db, k: string) => sql`update contract_rows set i = coalesce(i, 0) + 1 where k = ${k}`.execute(trx);
    const firstHolds = signal();
    const secondWent = signal();
    const first = one.db.transaction().execute(async (trx) => {
      await touch(trx, "r1");
      firstHolds.fire();
      await secondWent.promise;
      await touch(trx, "r2");
    });
    await firstHolds.promise;
    const second = other.db
      .transaction()
      .execute(async (trx) => {
        await touch(trx, "r2");
        secondWent.fire();
        await touch(trx, "r1");
      })
      .finally(secondWent.fire);
    const failures = (await Promise.all([failureOf(first), failureOf(second)])).filter((e) => e !== undefined);
    expect(failures).toHaveLength(1);
    for (const error of failures) {
      expect(dialectOf(one).errors.isBusy(error), (error as Error).message).toBe(true);
      expect(dialectOf(one).errors.isUniqueViolation(error)).toBe(false);
      expect(dialectOf(one).errors.storeError(error)).toBeUndefined();
    }
    // Run again from the start, the failed one commits: 2 increments of each row in all.
    await other.transaction(async (trx) => {
      await touch(trx, "r1");
      await touch(trx, "r2");
    });
    const counts = await sql<{ i: unknown }>`select i from contract_rows order by k`.execute(one.db);
    expect(counts.rows.map((row) => Number(row.i))).toEqual([2, 2]);
  });

  it("errors: a database with no room left fails a write with VERQ_STORE_FULL, which the engine's error names", async () => {
    const database = await fresh();
    const store = await openOn(database);
    await scratchTable(store);
    await engine.fill(database, store);
    let failure: unknown;
    for (let i = 0; i < 2_000 && failure === undefined; i++) {
      failure = await failureOf(
        store.transaction(async (trx) => {
          await sql`insert into events (stream_type, stream_id, version, type, data, at_ms) values ('contract', ${`s${i}`}, 1, 'contract.filled', ${"x".repeat(2_000)}, 1)`.execute(
            trx,
          );
        }),
      );
    }
    expect(isVerqError(failure, "VERQ_STORE_FULL"), String(failure)).toBe(true);
    const cause = (failure as Error).cause;
    expect(dialectOf(store).errors.storeError(cause)?.code).toBe("VERQ_STORE_FULL");
    expect(dialectOf(store).errors.isBusy(cause)).toBe(false);
    expect(dialectOf(store).errors.isUniqueViolation(cause)).toBe(false);
  });

  // Only where a test can damage the database cheaply (a SQLite file; not a server's files).
  const { damage } = engine;
  if (damage !== undefined)
    it("errors: a damaged database fails the statement that meets the damage with VERQ_STORE_CORRUPT, which the engine's error names", async () => {
      const database = await fresh();
      const store = await database.open();
      await scratchTable(store);
      await store.transaction(async (trx) => {
        for (let i = 0; i < 400; i++)
          await sql`insert into contract_rows (k, u) values (${`k${i}`}, ${"y".repeat(1_000) + i})`.execute(trx);
      });
      const { errors } = dialectOf(store);
      await store.close();
      await damage(database);
      const failure = await failureOf(
        (async () => {
          const again = await openOn(database);
          await sql`select count(*), max(u) from contract_rows`.execute(again.db);
        })(),
      );
      expect(isVerqError(failure, "VERQ_STORE_CORRUPT"), String(failure)).toBe(true);
      const cause = (failure as Error).cause;
      expect(cause).toBeDefined();
      expect(errors.storeError(cause)?.code).toBe("VERQ_STORE_CORRUPT");
      expect(errors.isBusy(cause)).toBe(false);
    });

  // Positions.

  it("positions: while a transaction that took a position is in flight, a settled mark never lets a reader pass it; once it ends, the mark settles", async () => {
    const database = await fresh();
    const writer = await openOn(database);
    // Gives up quickly where a second writer must wait (SQLite).
    const reader = await openOn(database, 100);
    const { positions, errors } = dialectOf(reader);
    const insertEvent = (db: Db, id: string) =>
      sql<{ position: unknown }>`insert into events (stream_type, stream_id, version, type, data, at_ms)
        values ('contract', ${id}, 1, 'contract.written', '{}', 1) returning position`.execute(db);
    const inserted = signal();
    const release = signal();
    let inFlight = 0;
    const writing = writer.db.transaction().execute(async (trx) => {
      inFlight = Number((await insertEvent(trx, "in-flight")).rows[0]?.position);
      inserted.fire();
      await release.promise;
    });
    await inserted.promise;
    // A later writer commits meanwhile, where the engine lets two writers run at once.
    const later = await failureOf(insertEvent(untyped(reader), "later"));
    if (later !== undefined && !errors.isBusy(later)) throw new Error("the later writer failed", { cause: later });

    const mark = await positions.markPositions(reader.db);
    const settledInFlight = await positions.positionsSettled(reader.db, mark);
    const { rows } = await sql<{
      top: unknown;
    }>`select max(position) as top from events where position <= ${mark.position}`.execute(reader.db);
    const visible = Number(rows[0]?.top ?? 0);
    release.fire();
    await writing;
    if (settledInFlight)
      expect(inFlight, "a reader that stopped at the settled mark would skip the event in flight").toBeGreaterThan(visible);
    await until(() => positions.positionsSettled(reader.db, mark));
    expect(mark.position).toBeGreaterThanOrEqual(inFlight);
  });

  // Wake-ups.

  it("wake-ups: a store's own subscribers hear wakeHere until they stop; a committed announcement reaches another store that can hear one, a rolled back one never", async () => {
    const database = await fresh();
    const one = await openOn(database);
    const other = await openOn(database);
    const own = dialectOf(one).wakeups;
    let heardHere = 0;
    const stop = own.subscribe("jobs", () => heardHere++);
    own.wakeHere("jobs");
    expect(heardHere).toBe(1);
    stop();
    own.wakeHere("jobs");
    expect(heardHere).toBe(1);

    let heardThere = 0;
    const stopThere = dialectOf(other).wakeups.subscribe("jobs", () => heardThere++);
    const announce = (commit: boolean) =>
      failureOf(
        one.db.transaction().execute(async (trx) => {
          await own.notify(trx, "jobs", true);
          if (!commit) throw new Error("rolled back");
        }),
      );
    if (own.reachesOwnSubscribers) {
      // Until the other store listens: announcements before that are lost, which polling covers.
      await until(async () => {
        await announce(true);
        await pause(50);
        return heardThere > 0;
      });
      heardThere = 0;
      expect(await announce(false)).toBeDefined();
      expect(await announce(true)).toBeUndefined();
      await until(() => heardThere > 0);
      // The rolled back one would have come first (deliveries keep commit order).
      await pause(200);
      expect(heardThere).toBe(1);
    } else {
      expect(await announce(false)).toBeDefined();
      expect(await announce(true)).toBeUndefined();
      expect(heardThere).toBe(0);
    }
    stopThere();
  });

  // Maintenance.

  it("maintenance: a checkpoint runs between writes, and every committed row is there after it", async () => {
    const store = await open();
    await scratchTable(store);
    await insertKey(untyped(store), "before");
    await dialectOf(store).maintenance.checkpoint(store.db);
    await insertKey(untyped(store), "after");
    await dialectOf(store).maintenance.checkpoint(store.db);
    expect(await keys(untyped(store))).toEqual(["after", "before"]);
  });

  // Migrations.

  it("migrations: first opens of one fresh database at once take turns, and each migration runs once", async () => {
    const database = await fresh();
    const [first] = await Promise.all([openOn(database), openOn(database), openOn(database), openOn(database)]);
    const { rows } = await sql<{ name: string }>`select name from verq_migrations order by name`.execute(first.db);
    const names = rows.map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("012-lean-job-indexes");
    const schema = await dialectOf(first).migrations.migrationSchema(first.db);
    // SQLite has none; PostgreSQL the test's own schema, or the database's default one.
    expect(schema === undefined || schema === (database.schema ?? "public")).toBe(true);
  });
}
