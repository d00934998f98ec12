import fs from "node:fs";
import path from "node:path";

let counter = 0;

/** A new SQLite file path under `dir` (nothing there yet). */
export function freshDb(dir: string, name: string): string {
  fs.mkdirSync(dir, { recursive: true });
  counter++;
  return path.join(dir, `${name}-${process.pid}-${counter}.sqlite`);
}

/** Bytes on disk of a SQLite database with its WAL and shared-memory files. */
export function bytesOnDisk(file: string): number {
  return ["", "-wal", "-shm"].reduce((sum, suffix) => {
    try {
      return sum + fs.statSync(file + suffix).size;
    } catch {
      return sum;
    }
  }, 0);
}

/** Zero-padded, time-ordered job ids (as ULIDs or sequence numbers would be). */
export const jobId = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(9, "0")}`;
