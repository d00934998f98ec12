import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { postgresRequired } from "./test-database.ts";

const run = promisify(execFile);

/** A PostgreSQL server of one test's own: its data in a temporary folder, on a free port of 127.0.0.1. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is down for a moment, then back on the same port. */
  restart(): Promise<void>;
  /** Stops the server at once and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The folder of PostgreSQL's server programs (`initdb`, `pg_ctl`): `VERQ_PG_BINDIR`, else the
 * newest of Debian's `/usr/lib/postgresql/<version>/bin`; null when there is none.
 */
export function binDir(): string | null {
  const given = process.env.VERQ_PG_BINDIR;
  if (given !== undefined) return given;
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : path.join(root, versions[0], "bin");
}

/**
 * Whether a private server can be started here. Without `VERQ_REQUIRE_POSTGRES=1` a machine
 * without PostgreSQL's server programs skips the tests that need one and says so; with it, this
 * throws, so CI never passes by skipping them.
 */
export function privatePostgresAvailable(): boolean {
  if (binDir() !== null) return true;
  const why = "PostgreSQL's server programs (initdb, pg_ctl) were not found; set VERQ_PG_BINDIR";
  if (postgresRequired) throw new Error(`VERQ_REQUIRE_POSTGRES=1 but ${why}`);
  console.warn(`[verq] private PostgreSQL tests SKIPPED: ${why}`);
  return false;
}

/** A port nothing listens on now, from the OS. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The uid and gid of the `postgres` OS user: PostgreSQL refuses to run as root. */
export async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * `runuser`, which lives in an `sbin` folder that a shell's PATH may leave out (a non-login or
 * reduced environment); its name alone when it is in none of them.
 */
function runuser(): string {
  const found = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map((dir) => path.join(dir, "runuser")).find((p) => fs.existsSync(p));
  return found ?? "runuser";
}

/**
 * Starts a PostgreSQL server of the test's own (`initdb` in a temporary folder, `pg_ctl start`
 * on a free port, without fsync: nothing here must survive the machine), for a test that stops
 * or restarts the server and so must not disturb the shared one other tests use at the same
 * time. As root, the programs run as the `postgres` OS user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (bin === null) throw new Error("PostgreSQL's server programs were not found (see privatePostgresAvailable)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verq-pg-"));
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  const root = process.getuid?.() === 0;
  if (root) {
    const { uid, gid } = await postgresUser();
    fs.chownSync(dir, uid, gid);
  }
  const pg = (program: string, args: readonly string[]) =>
    root ? run(runuser(), ["-u", "postgres", "--", path.join(bin, program), ...args]) : run(path.join(bin, program), [...args]);
  const port = await freePort();
  const settings = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off -c shared_buffers=16MB`;
  let stopped = false;
  try {
    await pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "-N", "--no-instructions"]);
    await pg("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", settings, "start"]);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await pg("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-m", "fast", "restart"]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg("pg_ctl", ["-D", data, "-w", "-m", "immediate", "stop"]).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
