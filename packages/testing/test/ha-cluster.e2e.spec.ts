import { execFileSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haClusterAvailable, startHaCluster, type HaCluster } from "../src/engines/ha-cluster.ts";

/*
 * A three-node PostgreSQL cluster (etcd, Patroni, HAProxy) of this file's own, started from
 * nothing in a temporary folder: its primary is killed, a replica takes over, the lost node comes
 * back as a replica, and a switchover moves the primary again. The figures are printed, not held
 * to a target: how long Patroni takes is set by its `ttl` and `loop_wait`.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Opens a client whose later connection errors are thrown by its queries rather than crashing the process. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000, query_timeout: 5_000 });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** The name of the node a client's session runs on. */
async function nodeOf(cluster: HaCluster, client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query<{ port: number }>("select inet_server_port() as port");
  return cluster.nodes.find((n) => n.pgPort === rows[0]?.port)?.name;
}

/** Tries to write one row through `url` on a fresh connection until it succeeds; returns the node that took it. */
async function writeUntilAccepted(cluster: HaCluster, id: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const client = await connect(cluster.url);
      try {
        await client.query("insert into acked (id, phase) values ($1, 'probe')", [id]);
        return (await nodeOf(cluster, client)) ?? "unknown";
      } finally {
        await client.end().catch(() => undefined);
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

describe.skipIf(!haClusterAvailable())("a three-node PostgreSQL cluster under Patroni and HAProxy", () => {
  let cluster: HaCluster;
  /** Every id whose insert was acknowledged (its commit returned). */
  const acked: number[] = [];
  let lost = "";

  beforeAll(async () => {
    cluster = await startHaCluster();
    const client = await connect(cluster.url);
    await client.query("create table acked (id int primary key, phase text not null)");
    await client.end();
  }, 150_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("keeps every acknowledged write through a lost primary and takes writes again on another node", async () => {
    const before = await cluster.primary();
    const client = await connect(cluster.url);
    for (let id = 1; id <= 200; id++) {
      await client.query("insert into acked (id, phase) values ($1, 'before')", [id]);
      acked.push(id);
    }
    // A writer that keeps committing while the primary dies: its last acknowledgements come a moment before the kill.
    let writing = true;
    const writer = (async () => {
      for (let id = 1_000; ; id++) {
        try {
          await client.query("insert into acked (id, phase) values ($1, 'during')", [id]);
        } catch {
          writing = false;
          return;
        }
        acked.push(id);
      }
    })();
    while (writing && acked.length < 300) await sleep(10);
    const killedAt = Date.now();
    const { killed } = await cluster.killPrimary();
    lost = killed;
    expect(killed).toBe(before);
    await writer;
    await client.end().catch(() => undefined);

    const taker = await writeUntilAccepted(cluster, 100_000, 90_000);
    const failoverMs = Date.now() - killedAt;
    console.log(`[ha] lost primary ${killed}: first write accepted on ${taker} after ${failoverMs} ms`);
    expect(taker).not.toBe(killed);
    expect(await cluster.waitForPrimary(killed)).toBe(taker);

    const check = await connect(cluster.url);
    const { rows } = await check.query<{ id: number }>("select id from acked");
    await check.end();
    const present = new Set(rows.map((r) => r.id));
    expect(acked.filter((id) => !present.has(id))).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(300);
  }, 150_000);

  it("takes the lost node back as a streaming replica with every acknowledged row", async () => {
    await cluster.restartNode(lost);
    await cluster.waitForReplica(lost);
    const node = cluster.nodes.find((n) => n.name === lost)!;
    const replica = await connect(node.url);
    try {
      expect((await replica.query<{ r: boolean }>("select pg_is_in_recovery() as r")).rows[0]?.r).toBe(true);
      // A replica replays asynchronously unless it is the synchronous one: wait for the rows to arrive.
      let missing = acked.length;
      for (let tries = 0; tries < 100 && missing > 0; tries++) {
        const { rows } = await replica.query<{ id: number }>("select id from acked where id = any($1)", [acked]);
        missing = acked.length - rows.length;
        if (missing > 0) await sleep(100);
      }
      expect(missing).toBe(0);
    } finally {
      await replica.end();
    }
  }, 150_000);

  it("moves the primary by a switchover, cuts the sessions of the old one, and takes writes on the new one", async () => {
    const old = await connect(cluster.url);
    const startedAt = Date.now();
    const { from, to } = await cluster.switchover();
    const switchoverMs = Date.now() - startedAt;
    expect(to).not.toBe(from);
    expect(await cluster.primary()).toBe(to);
    const taker = await writeUntilAccepted(cluster, 100_001, 30_000);
    console.log(`[ha] switchover ${from} -> ${to}: ${switchoverMs} ms until ${to} answered through HAProxy`);
    expect(taker).toBe(to);
    await expect(old.query("select 1")).rejects.toThrow();
    await old.end().catch(() => undefined);
  }, 150_000);

  it("leaves no process and no folder behind when stopped, twice", async () => {
    const { dir } = cluster;
    await cluster.stop();
    await cluster.stop();
    const left = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(dir));
    expect(left).toEqual([]);
    expect(fs.existsSync(dir)).toBe(false);
  }, 60_000);
});
