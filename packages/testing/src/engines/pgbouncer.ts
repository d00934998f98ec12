import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { openStore, type PostgresStoreOptions, type VerqStore } from "@verq/store";
import { TEST_POSTGRES_URL, admin, gone, postgresRequired } from "./test-database.ts";

const run = promisify(execFile);

/** Server connections the pooler opens per database and user: fewer than the clients tests start. */
const POOL_SIZE = 20;

/** How long a pooler may take to listen, and to exit after SIGTERM, before the harness gives up or kills it. */
const START_MS = 10_000;
const STOP_MS = 5_000;

/** The temporary folders of this harness: `verq-pgbouncer-<pid of the Node process>-…`. */
const FOLDER_PREFIX = "verq-pgbouncer-";

/** One row of the admin console's `SHOW POOLS` or `SHOW SERVERS`, by PgBouncer's own column names. */
export type PgBouncerRow = Readonly<Record<string, unknown>>;

/**
 * A PgBouncer of one test's own in transaction mode, in front of a PostgreSQL server: every
 * transaction of a client may run on another server connection, as behind a production pooler.
 */
export interface PgBouncer {
  /** The port on 127.0.0.1 it listens on. */
  readonly port: number;
  /** The pgbouncer process's id. */
  readonly pid: number;
  /** Server connections per database and user (`default_pool_size`). */
  readonly poolSize: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: any database of the server, through the pooler. */
  url(database: string): string;
  /** The admin console's `SHOW POOLS`: one row per database and user, with `pool_mode`, `cl_active`, `sv_active`… */
  showPools(): Promise<readonly PgBouncerRow[]>;
  /** The admin console's `SHOW SERVERS`: one row per server connection, with `database`, `state`, `remote_pid`… */
  showServers(): Promise<readonly PgBouncerRow[]>;
  /** SIGTERM, SIGKILL when it has not exited within 5 s, then removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** The pgbouncer program: on the PATH, else in Debian's `/usr/sbin` or `/usr/bin`; null when there is none. */
function pgbouncerBinary(): string | null {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== ""), "/usr/sbin", "/usr/bin"];
  return dirs.map((dir) => path.join(dir, "pgbouncer")).find((file) => fs.existsSync(file)) ?? null;
}

/** util-linux's `setpriv`, which ties the pooler's life to the Node process's (see {@link launch}); null when absent. */
function setprivBinary(): string | null {
  return ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"].find((file) => fs.existsSync(file)) ?? null;
}

/**
 * Whether a PgBouncer can be started here. Without `VERQ_REQUIRE_POSTGRES=1` a machine without
 * the program skips the tests that need one and says so; with it, this throws, so CI never passes
 * by skipping them.
 */
export function pgbouncerAvailable(): boolean {
  if (pgbouncerBinary() !== null) return true;
  const why = "the pgbouncer program was found neither on the PATH nor in /usr/sbin or /usr/bin";
  if (postgresRequired) throw new Error(`VERQ_REQUIRE_POSTGRES=1 but ${why}`);
  console.warn(`[verq] PgBouncer tests SKIPPED: ${why}`);
  return false;
}

/** A port nothing listens on now, from the OS. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The uid and gid of the `postgres` OS user: PgBouncer refuses to run as root. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The configuration. Transaction mode with an empty `server_reset_query`, since a server
 * connection changes client at every transaction and a reset then would only cost a round trip.
 * The wildcard entry forwards any database name, so that each test's own database needs no entry.
 * `options` is deliberately not in `ignore_startup_parameters`: PgBouncer 1.18 would then drop
 * it silently, and a URL that sets its `search_path` there would write into `public` instead of
 * failing with "unsupported startup parameter: options".
 */
function configuration(dir: string, port: number, target: { host: string; port: number }): string {
  return [
    "[databases]",
    `* = host=${target.host} port=${target.port}`,
    "",
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${path.join(dir, "users.txt")}`,
    "admin_users = postgres",
    "stats_users = postgres",
    "pool_mode = transaction",
    "server_reset_query =",
    "max_client_conn = 500",
    `default_pool_size = ${POOL_SIZE}`,
    `logfile = ${path.join(dir, "pgbouncer.log")}`,
    `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
    "",
  ].join("\n");
}

/**
 * Starts pgbouncer in the foreground, so that its id is the child's. Through `setpriv
 * --pdeathsig`, the kernel sends it SIGTERM when the Node process dies, even killed (vitest ends
 * its workers with SIGTERM, which runs no exit handler); `runuser` would not do, since it forks and
 * its pid is not the pooler's. As root, setpriv (or else pgbouncer's own `-u`) switches to the
 * `postgres` user.
 */
function launch(binary: string, ini: string, root: boolean): ChildProcess {
  const setpriv = setprivBinary();
  const options = { stdio: "ignore" as const };
  if (setpriv === null) return spawn(binary, [...(root ? ["-u", "postgres"] : []), "-q", ini], options);
  const user = root ? ["--reuid=postgres", "--regid=postgres", "--init-groups"] : [];
  return spawn(setpriv, ["--pdeathsig", "TERM", ...user, "--", binary, "-q", ini], options);
}

/** Resolves when something accepts connections on `port` of 127.0.0.1, false when `exited` settles first. */
async function listening(port: number, exited: Promise<unknown>): Promise<boolean> {
  let over = false;
  void exited.then(() => (over = true));
  const end = Date.now() + START_MS;
  while (!over && Date.now() < end) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(true));
      socket.on("error", () => resolve(false));
      socket.on("connect", () => socket.destroy());
    });
    if (open) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** Whether `pid` is a pgbouncer now: a pid file may outlive its process, and the pid go to another program. */
function isPgBouncer(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "pgbouncer";
  } catch {
    return false;
  }
}

let foldersSwept = false;

/**
 * Kills, once per process, the poolers of Node processes that died without stopping them, and
 * removes their folders. `setpriv` normally ends such a pooler already; this covers machines
 * without it and the folders either way.
 */
function sweepAbandonedFolders(): void {
  if (foldersSwept) return;
  foldersSwept = true;
  for (const name of fs.readdirSync(os.tmpdir())) {
    const owner = Number(new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(owner) || owner === process.pid || !gone(owner)) continue;
    const dir = path.join(os.tmpdir(), name);
    const pidFile = path.join(dir, "pgbouncer.pid");
    try {
      const pooler = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8").trim()) : NaN;
      if (Number.isInteger(pooler) && pooler > 0 && isPgBouncer(pooler)) process.kill(pooler, "SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another user's leftovers, or one another process sweeps at the same time: not this start's concern.
    }
  }
}

/**
 * Starts a PgBouncer 1.18+ in transaction mode in front of `target` (default: the server of
 * `TEST_POSTGRES_URL`): its configuration and log in a temporary folder, on a free port of
 * 127.0.0.1, trust authentication for `postgres` and `root`, any database name forwarded,
 * {@link PgBouncer.poolSize} server connections per database and user, up to 500 clients. As
 * root it runs as the `postgres` OS user. It connects to the server as the client's user without
 * a password, so the server must trust `postgres` from the pooler's host. Connection URLs must not
 * carry `options` (PgBouncer 1.18 refuses the startup parameter), so a test gets a database of its
 * own rather than a schema: see {@link createPooledTestDatabase}.
 *
 * @example
 * const bouncer = await startPgBouncer();
 * const client = new pg.Client(bouncer.url("test"));
 * // …
 * await bouncer.stop();
 */
export async function startPgBouncer(target?: { host: string; port: number }): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (binary === null) throw new Error("the pgbouncer program was not found (see pgbouncerAvailable)");
  const server = new URL(TEST_POSTGRES_URL);
  const to = target ?? { host: server.hostname, port: Number(server.port || 5432) };
  sweepAbandonedFolders();
  const root = process.getuid?.() === 0;
  const owner = root ? await postgresUser() : null;
  // A free port may be taken again before pgbouncer binds it: then another is tried.
  for (let attempt = 1; ; attempt++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
    const port = await freePort();
    const ini = path.join(dir, "pgbouncer.ini");
    fs.writeFileSync(ini, configuration(dir, port, to));
    fs.writeFileSync(path.join(dir, "users.txt"), `"postgres" ""\n"root" ""\n`);
    if (owner !== null) for (const file of [dir, ini, path.join(dir, "users.txt")]) fs.chownSync(file, owner.uid, owner.gid);
    const child = launch(binary, ini, root);
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    if (child.pid !== undefined && (await listening(port, exited))) return running(child, child.pid, exited, dir, port);
    child.kill("SIGKILL");
    await exited;
    const log = fs.existsSync(path.join(dir, "pgbouncer.log")) ? fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8") : "";
    fs.rmSync(dir, { recursive: true, force: true });
    if (attempt < 3 && log.includes("Address already in use")) continue;
    throw new Error(`pgbouncer did not start on 127.0.0.1:${port}: ${log.trim().split("\n").slice(-5).join("\n") || "no log"}`);
  }
}

/** The poolers of this process not stopped yet, by pid, with their folders. */
const live = new Map<number, string>();

/**
 * Kills the poolers a test left running when the process exits, and removes their folders. An
 * exit handler must be synchronous, hence SIGKILL rather than {@link PgBouncer.stop}.
 */
function killLeftovers(): void {
  for (const [pid, dir] of live) {
    if (!gone(pid)) process.kill(pid, "SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The handle on a pooler that listens. */
function running(child: ChildProcess, pid: number, exited: Promise<void>, dir: string, port: number): PgBouncer {
  if (live.size === 0) process.once("exit", killLeftovers);
  live.set(pid, dir);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // The admin console speaks only the simple query protocol: a query without parameters.
  const ask = async (command: string): Promise<readonly PgBouncerRow[]> => {
    const client = new pg.Client({ connectionString: url("pgbouncer") });
    client.on("error", () => {});
    await client.connect();
    try {
      return (await client.query<PgBouncerRow>(command)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };
  let stopping: Promise<void> | undefined;
  return {
    port,
    pid,
    poolSize: POOL_SIZE,
    url,
    showPools: () => ask("SHOW POOLS"),
    showServers: () => ask("SHOW SERVERS"),
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
          await exited;
          clearTimeout(timer);
        }
        fs.rmSync(dir, { recursive: true, force: true });
        live.delete(pid);
        if (live.size === 0) process.off("exit", killLeftovers);
      })();
      return stopping;
    },
  };
}

/**
 * Everything `openStore` takes for a PostgreSQL store but the URL. `schema` does not pass
 * PgBouncer 1.18: the store sets it through the `options` startup parameter, which the pooler
 * refuses ("unsupported startup parameter: options").
 */
export type PooledOpenOptions = Omit<PostgresStoreOptions, "url">;

/**
 * One test's own database behind a PgBouncer in transaction mode. It is a database, not a schema
 * as in `TestDatabase`: the schema's `options=-c search_path=…` cannot pass the pooler.
 */
export interface PooledTestDatabase {
  /** Always PostgreSQL: a pooler fronts a server. */
  readonly engine: "postgres";
  /** The database's URL through the pooler: what the CLI's `--db` and `openStore` take. */
  readonly db: string;
  /** The same database on the server itself, past the pooler: to look at or set up what the test does not test. */
  readonly direct: string;
  /** Always null: the test owns the whole database, whose tables live in `public`. */
  readonly schema: null;
  /** Opens (again) a store through the pooler, with `preparedStatements: false` unless `options` say otherwise. */
  open(options?: PooledOpenOptions): Promise<VerqStore>;
  /** Drops the database, cutting the connections still on it. Safe to call twice. */
  dispose(): Promise<void>;
}

let shared: Promise<PgBouncer> | undefined;

/**
 * The pooler of this process's pooled databases when a test names none: started at the first one,
 * never stopped by a test, so killed when the process exits (by the exit handler of every pooler
 * left running, or by `setpriv` when the process is killed). A failed start is tried again next time.
 */
function sharedPgBouncer(): Promise<PgBouncer> {
  if (shared === undefined) {
    shared = startPgBouncer();
    void shared.catch(() => (shared = undefined));
  }
  return shared;
}

let databasesSwept: Promise<void> | undefined;

/**
 * Drops, once per process, the pooled test databases of processes that died before disposing of
 * them, as `createTestDatabase` does for its schemas. Those of live processes, and anything not
 * named `verq_pool_<pid>_…`, are left alone.
 */
async function sweepAbandonedDatabases(): Promise<void> {
  const { rows } = await admin(`select datname from pg_database where datname like 'verq\\_pool\\_%'`);
  for (const row of rows) {
    const name = String(row.datname);
    const pid = Number(/^verq_pool_(\d+)_[0-9a-f]+$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && gone(pid))
      await admin(`drop database if exists ${name} with (force)`).catch(() => {});
  }
}

/**
 * Creates a database of the test's own on the server of `TEST_POSTGRES_URL`, reached through
 * `bouncer`, or without one through a PgBouncer shared by the whole process, started with the
 * first such database. Pass a pooler of the test's own to read its console or to stop it.
 *
 * @example
 * const database = await createPooledTestDatabase();
 * const store = await database.open();
 * // …
 * await store.close();
 * await database.dispose();
 */
export async function createPooledTestDatabase(bouncer?: PgBouncer): Promise<PooledTestDatabase> {
  const pooler = bouncer ?? (await sharedPgBouncer());
  databasesSwept ??= sweepAbandonedDatabases();
  await databasesSwept;
  const name = `verq_pool_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin(`create database ${name}`);
  const direct = new URL(TEST_POSTGRES_URL);
  direct.pathname = `/${name}`;
  const db = pooler.url(name);
  let disposed = false;
  return {
    engine: "postgres",
    db,
    direct: direct.toString(),
    schema: null,
    open: (options = {}) => openStore({ url: db, preparedStatements: false, ...options }),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
