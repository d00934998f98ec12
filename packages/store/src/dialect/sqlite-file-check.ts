import fs from "node:fs";
import { sqliteCorrupt } from "./sqlite-errors.ts";

/** Every SQLite database file starts with these 16 bytes. */
const MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** How long an empty file may stay empty before it is taken for a damaged store, not one another process is creating. */
const EMPTY_GRACE_MS = 2_000;
const EMPTY_POLL_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The size of `file` in bytes, or null when it does not exist; a directory or a device counts as absent (SQLite says what is wrong with it). */
function sizeOf(file: string): number | null {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? stat.size : null;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
}

/** True when `file` exists with at least one byte. */
const nonEmpty = (file: string): boolean => (sizeOf(file) ?? 0) > 0;

/** What is wrong with an existing file at `path`, and whether another process may still be writing it into shape. */
interface Problem {
  readonly why: string;
  /** True for what a store being created or committed by another process looks like for a moment. */
  readonly passing: boolean;
}

function problemOf(path: string): Problem | null {
  const size = sizeOf(path) ?? 0;
  if (size === 0) return { why: "an empty file: delete it to let verq create a new store there", passing: true };
  const header = Buffer.alloc(100);
  const fd = fs.openSync(path, "r");
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (read < header.length || !header.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { why: "not a SQLite database: its first bytes are not SQLite's header", passing: false };
  }
  const pageSizeField = header.readUInt16BE(16);
  const pageSize = pageSizeField === 1 ? 65_536 : pageSizeField;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    return { why: `its header names a page size of ${pageSizeField} bytes`, passing: false };
  }
  // The header's page count is valid only when its change counter matches (SQLite's own rule);
  // a log that SQLite still replays may legitimately leave the file short of it.
  const pages = header.readUInt32BE(28);
  const counted = pages > 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
  if (counted && !nonEmpty(`${path}-wal`) && !nonEmpty(`${path}-journal`) && size < pages * pageSize) {
    return { why: `truncated: ${size} bytes where its header counts ${pages} pages of ${pageSize}`, passing: true };
  }
  return null;
}

/**
 * Checks the file at `path` before SQLite opens it, reading only, so that a store that is not
 * what it should be is refused with `VERQ_STORE_CORRUPT` and left byte for byte as it was,
 * instead of being taken for a new one and migrated over:
 *
 * - no file, but its write-ahead log (`-wal`) or rollback journal (`-journal`) is there: the
 *   database was deleted or moved without them (SQLite would start a new file and drop the log);
 * - an empty file;
 * - a file that does not start with SQLite's header, or whose header names a page size SQLite
 *   never writes;
 * - a file shorter than the pages its header counts (truncated), when no log is there that SQLite
 *   would still replay into it.
 *
 * An empty or short file is refused only once it has stayed so for {@link EMPTY_GRACE_MS}: a
 * store another process is creating, or committing to without a journal in sight, is whole
 * again within milliseconds. A missing file (a new store) passes. Damage inside the pages is
 * not seen here: SQLite reports it when a page is read, or at open with `quickCheck` (see
 * `SqliteOptions`).
 */
export async function checkSqliteFile(path: string): Promise<void> {
  if (sizeOf(path) === null) {
    const log = ["-wal", "-journal"].find((suffix) => nonEmpty(`${path}${suffix}`));
    if (log === undefined) return;
    // Looked for again: a process creating the store may have made the file, then its log,
    // between the first look and the log's. SQLite never writes a log before its file.
    if (sizeOf(path) === null) throw sqliteCorrupt(`its ${log.slice(1)} file ${path}${log} is there without it`, undefined, path);
  }
  for (let waited = 0; ; waited += EMPTY_POLL_MS) {
    const problem = problemOf(path);
    if (problem === null) return;
    if (!problem.passing || waited >= EMPTY_GRACE_MS) throw sqliteCorrupt(problem.why, undefined, path);
    await sleep(EMPTY_POLL_MS);
  }
}
