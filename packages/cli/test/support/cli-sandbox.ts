import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, lstatSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { runCli } from "../../src/main.ts";

/** What one in-process run of `verq` printed, and its exit code. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `verq args` in this process, each line it writes ending with a line break. */
export async function runInProcess(args: readonly string[]): Promise<CliResult> {
  let out = "";
  let err = "";
  const line = (t: string) => (t.endsWith("\n") ? t : `${t}\n`);
  const code = await runCli(args, { out: (t) => (out += line(t)), err: (t) => (err += line(t)) });
  return { code, out, err };
}

/** Every file and folder under `dir` with its size, mtime and content hash: what "nothing changed" compares. */
export function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const key = `${rel}/${name}`;
      const stat = lstatSync(full);
      if (stat.isDirectory()) {
        entries[key] = `dir ${stat.mtimeMs}`;
        walk(full, key);
      } else {
        const hash = createHash("sha256").update(readFileSync(full)).digest("hex").slice(0, 16);
        entries[key] = `file ${stat.size} ${stat.mtimeMs} ${hash}`;
      }
    }
  };
  walk(dir, "");
  return entries;
}

/** A TCP port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * The sandbox every case of the corpus runs in: a SQLite store with a job `j1`, a file queue
 * with a message in inbox/ and one in error/, a profile and an NDJSON file; `seed` builds it
 * once, `fresh` copies it for one case (so a case that changed something is seen alone).
 */
export async function seedSandbox(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const db = join(dir, "verq.sqlite");
  const root = join(dir, "queue");
  const seeded = [
    await runInProcess(["jobs", "enqueue", "--db", db, "--id", "j1", "--payload", "{}"]),
    await runInProcess(["files", "init", root]),
  ];
  if (seeded.some((r) => r.code !== 0)) throw new Error(`seeding failed: ${JSON.stringify(seeded)}`);
  writeFileSync(join(root, "inbox", "m1.json"), JSON.stringify({ msg_id: "m1", order_no: "o1", seq: 1, amount: 1 }));
  writeFileSync(join(root, "error", "bad.json"), "{");
  writeFileSync(join(dir, "profile.json"), JSON.stringify({}));
  writeFileSync(join(dir, "jobs.ndjson"), `${JSON.stringify({ id: "n1", payload: {} })}\n`);
}

/** A copy of the sandbox at `from` in `to`. */
export function copySandbox(from: string, to: string): void {
  if (existsSync(to)) throw new Error(`${to} exists`);
  cpSync(from, to, { recursive: true });
}
