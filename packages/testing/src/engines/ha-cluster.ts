import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  dataDir,
  etcdArgs,
  haproxyConfig,
  nodeDir,
  patroniConfig,
  patroniConfigPath,
  type HaLayout,
} from "./ha-cluster-config.ts";
import { killAllUnder, killEverythingUnder, processesUnder, spawnLogged, tail, until, waitGone } from "./ha-cluster-processes.ts";
import { clusterMembers, findProgram, query, type HaMember } from "./ha-cluster-probes.ts";
import { binDir, freePort, postgresUser } from "./private-postgres.ts";
import { postgresRequired } from "./test-database.ts";

const run = promisify(execFile);

/** One PostgreSQL node of the cluster, with its own Patroni. */
export interface HaNode {
  /** `node1`, `node2` or `node3`: the Patroni member name. */
  readonly name: string;
  readonly pgPort: number;
  /** The port of its Patroni REST API. */
  readonly restPort: number;
  /** `postgres://postgres@127.0.0.1:<pgPort>/<database>`: this node itself, whatever its role. */
  readonly url: string;
}

/** How `startHaCluster` starts a cluster. */
export interface HaClusterOptions {
  /** The database created for the caller, in which `url` points; `postgres` creates none. Default `verq`. */
  readonly database?: string;
  /** How long the start may take before it fails with the logs' tails. Default 120 s. */
  readonly startTimeoutMs?: number;
  /**
   * Leave the cluster running when this process exits (the command-line entry). By default an
   * `exit` handler kills it, so that a test that dies before `stop()` leaves nothing behind.
   */
  readonly keepAfterExit?: boolean;
}

/**
 * A three-node PostgreSQL cluster under Patroni, one etcd and HAProxy, of one test's own: every
 * file in one temporary folder, every program on free ports of 127.0.0.1.
 */
export interface HaCluster {
  /** The folder that holds every file of the cluster, the logs (`etcd.log`, `node1.log`, …, `haproxy.log`) included. */
  readonly dir: string;
  /** The database `url` and `replicaUrl` point to. */
  readonly database: string;
  /** Writes: `postgres://postgres@127.0.0.1:<HAProxy write port>/<database>`, routed to the current primary. */
  readonly url: string;
  /** Reads: `postgres://postgres@127.0.0.1:<HAProxy read port>/<database>`, spread over the running replicas. */
  readonly replicaUrl: string;
  readonly nodes: readonly HaNode[];
  /** Patroni's `/cluster` view. */
  members(): Promise<HaMember[]>;
  /** The name of the current leader by Patroni; throws when there is none (mid-failover). */
  primary(): Promise<string>;
  /** Waits until a primary other than `notName` answers through `url`, and returns its name. Default 60 s. */
  waitForPrimary(notName?: string, timeoutMs?: number): Promise<string>;
  /** Waits until `name` runs as a replica that streams from the primary. Default 120 s. */
  waitForReplica(name: string, timeoutMs?: number): Promise<void>;
  /**
   * A lost primary: SIGKILL to the primary's Patroni and to its PostgreSQL server (postmaster and
   * backends) at once, so that a replica is promoted rather than Patroni restarting the server.
   */
  killPrimary(): Promise<{ killed: string }>;
  /** A crashed server: SIGKILL to the primary's postmaster and backends only; its Patroni lives and may restart it. */
  killPostmaster(): Promise<{ killed: string }>;
  /** Starts the Patroni of a node killed by `killPrimary` again; it rejoins as a replica (see `waitForReplica`). */
  restartNode(name: string): Promise<void>;
  /**
   * `patronictl switchover --force` to the synchronous replica; resolves once a new primary answers
   * through `url`.
   */
  switchover(): Promise<{ from: string; to: string }>;
  /** Kills every process of the cluster and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

const NODE_NAMES = ["node1", "node2", "node3"] as const;
const PROGRAMS = ["patroni", "patronictl", "etcd", "haproxy"] as const;

/** Why a cluster cannot be started here, or null when it can. */
function missing(): string | null {
  const absent: string[] = PROGRAMS.filter((program) => findProgram(program) === null);
  if (binDir() === null) absent.push("PostgreSQL's server programs (initdb, pg_ctl; set VERQ_PG_BINDIR)");
  return absent.length === 0 ? null : `not found: ${absent.join(", ")} (Debian: apt-get install patroni etcd-server haproxy)`;
}

/**
 * Whether a high-availability cluster can be started here (Patroni, etcd, HAProxy and
 * PostgreSQL's server programs found). Without `VERQ_REQUIRE_POSTGRES=1` a machine without them
 * skips the tests that need one and says so; with it, this throws, so CI never passes by skipping.
 */
export function haClusterAvailable(): boolean {
  const why = missing();
  if (why === null) return true;
  if (postgresRequired) throw new Error(`VERQ_REQUIRE_POSTGRES=1 but the high-availability cluster cannot start: ${why}`);
  console.warn(`[verq] high-availability PostgreSQL tests SKIPPED: ${why}`);
  return false;
}

/** `count` distinct free ports (the OS may hand out a port it just released again). */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/**
 * Starts a three-node PostgreSQL high-availability cluster from nothing: one etcd (v3 API), three
 * Patroni nodes `node1`…`node3` with synchronous replication (`synchronous_mode`) and pg_rewind,
 * and HAProxy in front. Resolves when there is a primary, two streaming replicas of which one is
 * synchronous, and `select 1` through `url` works; a failed start removes everything and throws
 * with the relevant logs' tails. As root, PostgreSQL and Patroni run as the `postgres` OS user.
 *
 * @example
 * const cluster = await startHaCluster();
 * try {
 *   const { killed } = await cluster.killPrimary();
 *   const promoted = await cluster.waitForPrimary(killed);
 * } finally {
 *   await cluster.stop();
 * }
 */
export async function startHaCluster(options: HaClusterOptions = {}): Promise<HaCluster> {
  const why = missing();
  const bin = binDir();
  if (why !== null || bin === null) throw new Error(`the high-availability cluster cannot start: ${why ?? "no PostgreSQL"}`);
  const database = options.database ?? "verq";
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`database name ${database} is not a plain identifier`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verq-ha-"));
  const user = process.getuid?.() === 0 ? await postgresUser() : undefined;
  // Patroni, running as postgres, reads its configuration here and PostgreSQL writes its data here.
  if (user !== undefined) fs.chownSync(dir, user.uid, user.gid);
  const [etcdClientPort, etcdPeerPort, writePort, readPort, ...nodePorts] = await freePorts(4 + 2 * NODE_NAMES.length);
  const layout: HaLayout = {
    dir,
    etcdClientPort: etcdClientPort!,
    etcdPeerPort: etcdPeerPort!,
    writePort: writePort!,
    readPort: readPort!,
    nodes: NODE_NAMES.map((name, i) => ({ name, pgPort: nodePorts[2 * i]!, restPort: nodePorts[2 * i + 1]! })),
  };
  const nodes: HaNode[] = layout.nodes.map((n) => ({ ...n, url: `postgres://postgres@127.0.0.1:${n.pgPort}/${database}` }));
  const restPorts = nodes.map((n) => n.restPort);
  const admin = `postgres://postgres@127.0.0.1:${layout.writePort}/postgres`;
  const url = `postgres://postgres@127.0.0.1:${layout.writePort}/${database}`;
  const log = (name: string) => path.join(dir, `${name}.log`);
  // A clean environment: a caller's PGPORT, PGHOST or locale must not change how the servers start.
  const env = { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };

  const startPatroni = (name: string) =>
    spawnLogged(findProgram("patroni")!, [patroniConfigPath(layout, name)], {
      log: log(name),
      env: { ...env, HOME: nodeDir(layout, name) },
      user,
    });
  const nodeNamed = (name: string): HaNode => {
    const node = nodes.find((n) => n.name === name);
    if (node === undefined) throw new Error(`no node ${name} (nodes: ${NODE_NAMES.join(", ")})`);
    return node;
  };
  const members = () => clusterMembers(restPorts);
  const primary = async () => {
    const leader = (await members()).find((m) => m.role === "leader");
    if (leader === undefined) throw new Error("the cluster has no leader now");
    return leader.name;
  };
  const waitForPrimary = (notName?: string, timeoutMs = 60_000) =>
    until(`a primary other than ${notName ?? "none"} through ${url}`, timeoutMs, async () => {
      const [row] = await query<{ recovery: boolean; port: number }>(
        url,
        "select pg_is_in_recovery() as recovery, inet_server_port() as port",
      );
      const name = nodes.find((n) => n.pgPort === row?.port)?.name;
      return row?.recovery === false && name !== undefined && name !== notName ? name : undefined;
    });
  const streaming = async (leader: string) =>
    query<{ name: string; sync: string }>(
      `postgres://postgres@127.0.0.1:${nodeNamed(leader).pgPort}/postgres`,
      "select application_name as name, sync_state as sync from pg_stat_replication where state = 'streaming'",
    );
  const waitForReplica = (name: string, timeoutMs = 120_000) =>
    until(`${name} to stream as a replica`, timeoutMs, async () => {
      const view = await members();
      const leader = view.find((m) => m.role === "leader");
      const member = view.find((m) => m.name === name);
      if (leader === undefined || member === undefined || member.state !== "running" || member.role === "leader")
        return undefined;
      return (await streaming(leader.name)).some((r) => r.name === name) ? true : undefined;
    }).then(() => undefined);
  /** A primary, two streaming replicas of which one is synchronous, and HAProxy routing to the primary. */
  const healthy = async () => {
    const view = await members();
    const leader = view.find((m) => m.role === "leader");
    if (leader === undefined || view.length !== NODE_NAMES.length || view.some((m) => m.state !== "running")) return undefined;
    if (!view.some((m) => m.role === "sync_standby")) return undefined;
    const replicas = await streaming(leader.name);
    if (replicas.length !== NODE_NAMES.length - 1 || !replicas.some((r) => r.sync === "sync")) return undefined;
    const [row] = await query<{ port: number }>(admin, "select inet_server_port() as port");
    return row?.port === nodeNamed(leader.name).pgPort ? true : undefined;
  };

  const onExit = () => {
    killEverythingUnder(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  if (options.keepAfterExit !== true) process.on("exit", onExit);
  const fail = async (error: unknown, logs: readonly string[]): Promise<never> => {
    const tails = logs.map((name) => `--- ${name}.log (last lines)\n${tail(log(name))}`).join("\n");
    process.off("exit", onExit);
    await killAllUnder(dir).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the high-availability cluster did not start: ${error instanceof Error ? error.message : String(error)}\n${tails}`,
    );
  };

  const limit = options.startTimeoutMs ?? 120_000;
  try {
    for (const node of layout.nodes) {
      fs.mkdirSync(nodeDir(layout, node.name));
      if (user !== undefined) fs.chownSync(nodeDir(layout, node.name), user.uid, user.gid);
      fs.writeFileSync(patroniConfigPath(layout, node.name), patroniConfig(layout, node, bin));
    }
    fs.writeFileSync(path.join(dir, "haproxy.cfg"), haproxyConfig(layout));
  } catch (error) {
    return fail(error, []);
  }
  try {
    spawnLogged(findProgram("etcd")!, etcdArgs(layout), { log: log("etcd"), env });
    await until(
      "etcd to answer /health",
      30_000,
      async () => {
        const response = await fetch(`http://127.0.0.1:${layout.etcdClientPort}/health`, { signal: AbortSignal.timeout(1_000) });
        return response.ok ? true : undefined;
      },
      () => (processesUnder(`--data-dir=${path.join(dir, "etcd")}`).length === 0 ? "etcd exited" : undefined),
    );
  } catch (error) {
    return fail(error, ["etcd"]);
  }
  try {
    for (const name of NODE_NAMES) startPatroni(name);
    spawnLogged(findProgram("haproxy")!, ["-db", "-f", path.join(dir, "haproxy.cfg")], { log: log("haproxy"), env });
    const exited = () => {
      const gone = [...NODE_NAMES.map((name) => patroniConfigPath(layout, name)), path.join(dir, "haproxy.cfg")].filter(
        (file) => processesUnder(file).length === 0,
      );
      return gone.length === 0 ? undefined : `exited: the programs of ${gone.map((file) => path.relative(dir, file)).join(", ")}`;
    };
    await until("a primary with a synchronous and a second streaming replica, reached through HAProxy", limit, healthy, exited);
    if (database !== "postgres") {
      await query(admin, `create database ${database}`);
      await query(url, "select 1");
    }
  } catch (error) {
    return fail(error, [...NODE_NAMES, "haproxy", "etcd"]);
  }

  let stopped = false;
  return {
    dir,
    database,
    url,
    replicaUrl: `postgres://postgres@127.0.0.1:${layout.readPort}/${database}`,
    nodes,
    members,
    primary,
    waitForPrimary,
    waitForReplica,
    async killPrimary() {
      const killed = await primary();
      // Patroni first: a live Patroni would restart the server it sees die.
      await killAllUnder(patroniConfigPath(layout, killed));
      await killAllUnder(dataDir(layout, killed));
      return { killed };
    },
    async killPostmaster() {
      const killed = await primary();
      // Once, not until none is left: the Patroni that lives on is meant to start the server again.
      const pids = killEverythingUnder(dataDir(layout, killed));
      if (pids.length === 0) throw new Error(`the PostgreSQL server of ${killed} does not run`);
      await waitGone(pids);
      return { killed };
    },
    async restartNode(name) {
      nodeNamed(name);
      if (processesUnder(patroniConfigPath(layout, name)).length > 0) throw new Error(`the Patroni of ${name} still runs`);
      // A server whose Patroni was killed alone would otherwise be adopted as it is; this is a lost node coming back.
      await killAllUnder(dataDir(layout, name));
      startPatroni(name);
    },
    async switchover() {
      const from = await primary();
      const candidate = await until("a running synchronous replica", 60_000, async () => {
        const sync = (await members()).find((m) => m.role === "sync_standby" && m.state === "running");
        return sync?.name;
      });
      const args = ["-c", patroniConfigPath(layout, from), "switchover", "--leader", from, "--candidate", candidate, "--force"];
      const { stdout } = await run(findProgram("patronictl")!, args, { env: { ...env, HOME: dir }, timeout: 90_000 });
      if (!/switched over/i.test(stdout)) throw new Error(`patronictl switchover did not succeed:\n${stdout}`);
      const to = await waitForPrimary(from);
      return { from, to };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", onExit);
      await killAllUnder(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
