import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** The default size limit of a message file: 1 MiB. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * A claimed file's bytes; or its size when it is over the limit (then it was not read whole);
 * or, for a symbolic link or anything else that is not a regular file, what it is (never read).
 */
export type ReadResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly size: number; readonly notAFile?: undefined }
  | { readonly ok: false; readonly notAFile: string };

/**
 * Reads a claimed file (only ever in `processing/`, SPEC F1). The size is checked on the open
 * descriptor first, and reading stops as soon as it passes the limit, so a file over the limit
 * (or one that grows past it while read) is never read into memory whole. A symbolic link is
 * never followed (`O_NOFOLLOW`): what it points to may lie outside the queue.
 */
export function readClaimedFile(path: string, maxBytes: number): ReadResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") return { ok: false, notAFile: "a symbolic link" };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, notAFile: stat.isDirectory() ? "a folder" : "not a regular file" };
    const size = stat.size;
    if (size > maxBytes) return { ok: false, size };
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(65_536, Math.max(4_096, size + 1 - length)));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > maxBytes) return { ok: false, size: length };
    }
    return { ok: true, bytes: Buffer.concat(chunks, length) };
  } finally {
    closeSync(fd);
  }
}
