import { linkSync, lstatSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { MessageError, VerqError } from "@verq/core";
import { sameFile } from "./place-file.ts";
import { openQueue } from "./queue-dirs.ts";

/** The longest file name (in UTF-8 bytes) the common file systems hold: Linux's NAME_MAX. */
export const MAX_FILE_NAME_BYTES = 255;

/**
 * Checks that `file` is a plain file name: not empty, not `.` or `..`, no `/`, `\` or NUL, at
 * most {@link MAX_FILE_NAME_BYTES} bytes. Throws `VERQ_INVALID_ARGUMENT` otherwise, so that a
 * replay can never reach outside `error/`, and a name no folder can hold is bad input, not a
 * file that is missing.
 */
export function checkFileName(file: string): string {
  if (file === "" || file === "." || file === ".." || /[/\\\0]/.test(file)) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "FILE must be the name of a file in error/, not a path (no /, \\ or ..)");
  }
  // No file system holds a longer name: it could only be reported as not found.
  if (Buffer.byteLength(file) > MAX_FILE_NAME_BYTES) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `FILE must be a file name of at most ${MAX_FILE_NAME_BYTES} bytes`);
  }
  return file;
}

/**
 * Moves `error/FILE` back to `inbox/FILE` (SPEC F8) and nothing else. It refuses, changing
 * nothing, when FILE is a path (`VERQ_INVALID_ARGUMENT`), is not a file in `error/`
 * (`VERQ_FILE_NOT_FOUND`), or when the inbox already holds another file of that name
 * (`VERQ_FILE_EXISTS`). The move is a hard link then the removal of the old name: it can never
 * replace a file in the inbox, and a crash in between leaves both names on one file, which a
 * second replay finishes.
 */
export function replayFile(root: string, file: string): void {
  const dirs = openQueue(root);
  checkFileName(file);
  const from = join(dirs.error, file);
  const to = join(dirs.inbox, file);
  let isFile = false;
  try {
    isFile = lstatSync(from).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile)
    throw new MessageError(
      "VERQ_FILE_NOT_FOUND",
      `${file} is not a file in error/; nothing was changed (list them with: verq files errors)`,
    );
  try {
    linkSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !sameFile(from, to)) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") {
        throw new MessageError("VERQ_FILE_EXISTS", `inbox/ already holds another ${file}; nothing was changed`);
      }
      throw error;
    }
  }
  unlinkSync(from);
}
