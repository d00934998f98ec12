import { linkSync, lstatSync, unlinkSync } from "node:fs";
import { extname, join } from "node:path";
import { MessageError } from "@verq/core";

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * True when `a` and `b` are the same file (the same inode), false when either is missing. A
 * symbolic link is compared as itself, not as what it points to: two links to one target are
 * two files.
 */
export function sameFile(a: string, b: string): boolean {
  try {
    const sa = lstatSync(a);
    const sb = lstatSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** `name` with `~tag` before its extension: `a.json` → `a~tag.json`. */
export function taggedName(name: string, tag: string): string {
  const ext = extname(name);
  return ext === "" || ext === name ? `${name}~${tag}` : `${name.slice(0, -ext.length)}~${tag}${ext}`;
}

/**
 * Puts the file at `src` into `dir` under `name` by a hard link, never replacing anything:
 * `link` fails atomically when the name is taken. If it is taken by this very file (a consumer
 * died between this step and the next), that is success. If it is taken by another file (a
 * producer reused a name), the file goes under `name~tag` instead. Returns the name used; the
 * caller removes `src` once the database has recorded it. Throws `ENOENT` when `src` is gone.
 */
export function placeFile(src: string, dir: string, name: string, tag: string): string {
  for (const candidate of [name, taggedName(name, tag)]) {
    const dst = join(dir, candidate);
    try {
      linkSync(src, dst);
      return candidate;
    } catch (error) {
      if (errno(error) !== "EEXIST") throw error;
      if (sameFile(src, dst)) return candidate;
    }
  }
  throw new MessageError("VERQ_FILE_EXISTS", `${dir} already holds other files named ${name} and ${taggedName(name, tag)}`);
}

/** True when `path` names something, a dangling symbolic link included. */
export function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes `path`; a file that is already gone is fine. */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errno(error) !== "ENOENT") throw error;
  }
}
