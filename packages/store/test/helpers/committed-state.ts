import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import type { TestDatabase } from "@verq/testing";
import { REPO_ROOT, TSX_LOADER, helperScript } from "./run-ts-child.ts";

/** Reads jobs' committed states through a connection other than the store's. */
export interface CommittedStateReader {
  /** The job's committed state at this moment (undefined when there is no such job), read synchronously. */
  state(id: string): string | undefined;
  close(): void;
}

/**
 * What another process sees of a job, read at once and synchronously, so that a test can call
 * it from inside a worker's synchronous callback while nothing else runs: a read-only second
 * connection to the SQLite file, or a child process with a connection of its own to PostgreSQL
 * (a read there cannot be synchronous in this process).
 */
export function committedStateReader(database: TestDatabase): CommittedStateReader {
  if (database.engine === "sqlite") {
    const reader = new Database(database.db, { readonly: true });
    return {
      state: (id) => (reader.prepare("select state from jobs where id = ?").get(id) as { state: string } | undefined)?.state,
      close: () => reader.close(),
    };
  }
  return {
    state(id) {
      const out = execFileSync(process.execPath, ["--import", TSX_LOADER, helperScript("read-job-state.ts"), database.db, id], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 30_000,
      });
      return (JSON.parse(out) as string | null) ?? undefined;
    },
    close: () => undefined,
  };
}
