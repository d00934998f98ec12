import net from "node:net";
import pg from "pg";
import { JobQueue } from "@verq/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admin,
  createPooledTestDatabase,
  engineAvailable,
  pgbouncerAvailable,
  startPgBouncer,
  type PgBouncer,
  type PooledTestDatabase,
} from "../src/index.ts";

/** A client of its own on `url`, ended by the caller. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** The server process that ran the client's last statement. */
async function backend(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return rows[0]!.pid;
}

/** Whether anything accepts a connection on `port` of 127.0.0.1. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

describe.skipIf(!pgbouncerAvailable() || !(await engineAvailable("postgres")))("PgBouncer in transaction mode", () => {
  let bouncer: PgBouncer;
  let database: PooledTestDatabase;

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    database = await createPooledTestDatabase(bouncer);
  });
  afterAll(async () => {
    await database?.dispose();
    await bouncer?.stop();
  });

  it("passes statements through to the test's own database on the server", async () => {
    const client = await connect(database.db);
    try {
      await client.query("create table notes (body text)");
      await client.query("insert into notes values ('through the pooler')");
    } finally {
      await client.end();
    }
    const direct = await connect(database.direct);
    try {
      const { rows } = await direct.query("select body, current_database() as name from notes");
      expect(rows).toEqual([{ body: "through the pooler", name: new URL(database.db).pathname.slice(1) }]);
    } finally {
      await direct.end();
    }
    const pool = (await bouncer.showPools()).find((row) => row.database === new URL(database.db).pathname.slice(1));
    expect(pool).toMatchObject({ user: "postgres", pool_mode: "transaction" });
  });

  it("hands a client's next transaction to another server connection when its last one is taken", async () => {
    const [a, b] = [await connect(database.db), await connect(database.db)];
    try {
      const first = await backend(a);
      // `a`'s transaction is over, so its server connection is back in the pool, and PgBouncer hands
      // out the one released last first (`server_round_robin` is off): `b` takes it.
      await b.query("begin");
      expect(await backend(b)).toBe(first);
      // In session mode `a` would keep its connection; in transaction mode it gets another.
      expect(await backend(a)).not.toBe(first);
      await b.query("commit");
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it("runs the transactions of more clients than its pool on at most poolSize server connections", async () => {
    const clients = await Promise.all(Array.from({ length: bouncer.poolSize + 10 }, () => connect(database.db)));
    try {
      const backends = await Promise.all(
        clients.map(async (client) => {
          await client.query("begin");
          const pid = await backend(client);
          await client.query("select pg_sleep(0.05)");
          await client.query("commit");
          return pid;
        }),
      );
      expect(new Set(backends).size).toBeLessThanOrEqual(bouncer.poolSize);
      const name = new URL(database.db).pathname.slice(1);
      const servers = (await bouncer.showServers()).filter((row) => row.database === name);
      expect(servers.length).toBeGreaterThan(0);
      expect(servers.length).toBeLessThanOrEqual(bouncer.poolSize);
      const { rows } = await admin(`select count(*)::int as n from pg_stat_activity where datname = '${name}'`);
      expect(rows[0]!.n).toBeLessThanOrEqual(bouncer.poolSize);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it("drops the pooled database on dispose, cutting the pooler's server connections, and twice is harmless", async () => {
    const own = await createPooledTestDatabase(bouncer);
    const name = new URL(own.db).pathname.slice(1);
    const client = await connect(own.db);
    await client.query("select 1");
    await client.end();
    await own.dispose();
    await own.dispose();
    const { rows } = await admin(`select count(*)::int as n from pg_database where datname = '${name}'`);
    expect(rows[0]!.n).toBe(0);
  });

  it("without a pooler named, the databases of one process share one, and open gives a store that works through it", async () => {
    const [first, second] = [await createPooledTestDatabase(), await createPooledTestDatabase()];
    try {
      expect(new URL(first.db).port).toBe(new URL(second.db).port);
      expect(new URL(first.db).port).not.toBe(String(bouncer.port));
      const store = await first.open();
      try {
        await new JobQueue(store).enqueue({ id: "through-the-pooler", payload: null });
      } finally {
        await store.close();
      }
      const direct = await connect(first.direct);
      try {
        const { rows } = await direct.query("select id from jobs");
        expect(rows).toEqual([{ id: "through-the-pooler" }]);
      } finally {
        await direct.end();
      }
    } finally {
      await Promise.all([first.dispose(), second.dispose()]);
    }
  });

  it("stop leaves no pgbouncer process and nothing listening, and twice is harmless", async () => {
    const other = await startPgBouncer();
    expect(await accepts(other.port)).toBe(true);
    await other.stop();
    await other.stop();
    expect(() => process.kill(other.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(await accepts(other.port)).toBe(false);
  });
});
