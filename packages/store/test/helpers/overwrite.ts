import fs from "node:fs";

/** The bytes of one page of a SQLite file (SQLite's default page size). */
export const SQLITE_PAGE = 4096;

/** Writes `bytes` over `file` at `offset`, in place: damage as a disk or another program makes it. */
export function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = fs.openSync(file, "r+");
  try {
    fs.writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    fs.closeSync(fd);
  }
}
