import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { VerqError } from "@verq/core";

/** The four folders of a directory queue (SPEC F1), as absolute paths. */
export interface QueueDirs {
  readonly root: string;
  readonly inbox: string;
  readonly processing: string;
  readonly done: string;
  readonly error: string;
}

/** The folder names under a queue root. */
export const QUEUE_FOLDERS = ["inbox", "processing", "done", "error"] as const;

/** The paths of the queue at `root` (nothing is checked or created). */
export function queueDirs(root: string): QueueDirs {
  const r = resolve(root);
  return { root: r, inbox: join(r, "inbox"), processing: join(r, "processing"), done: join(r, "done"), error: join(r, "error") };
}

/** Creates the four folders under `root` (and `root`); a no-op for those that exist. */
export function initQueue(root: string): QueueDirs {
  const dirs = queueDirs(root);
  try {
    for (const folder of QUEUE_FOLDERS) mkdirSync(dirs[folder], { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new VerqError("VERQ_INVALID_ARGUMENT", `cannot create the queue folders under ${dirs.root} (${code})`, {
      cause: error,
    });
  }
  return dirs;
}

/**
 * The queue at `root`, checked: the four folders exist and are on one filesystem, so that a
 * rename between them is atomic (SPEC F1). Throws `VERQ_INVALID_ARGUMENT` otherwise.
 */
export function openQueue(root: string): QueueDirs {
  const dirs = queueDirs(root);
  const devices = new Set<number>();
  for (const folder of QUEUE_FOLDERS) {
    let dev: number;
    try {
      const stat = statSync(dirs[folder]);
      if (!stat.isDirectory()) throw new Error("not a directory");
      dev = stat.dev;
    } catch {
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        `${dirs.root} is not a file queue: ${folder}/ is missing; create it with: verq files init ROOT`,
      );
    }
    devices.add(dev);
  }
  if (devices.size !== 1) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      `the folders of ${dirs.root} are on different filesystems; a claim must be one atomic rename, so put them on one`,
    );
  }
  return dirs;
}

/**
 * True for a name the consumer takes from the inbox: it ends in `.json` and does not start
 * with a dot (producers write `.name.json.tmp` or elsewhere, then rename into the inbox, so a
 * half-written file is never claimed). Other names are left alone and not counted.
 */
export function isMessageFileName(name: string): boolean {
  return name.endsWith(".json") && !name.startsWith(".") && name.length > ".json".length;
}

/**
 * Names of the files in `dir`, sorted; `filter` narrows them. Regular files and symbolic links
 * (a link is claimed as itself and goes to `error/`, never followed); folders are not listed,
 * so a folder in the inbox is left alone.
 */
export function listFiles(dir: string, filter: (name: string) => boolean = () => true): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && filter(e.name))
    .map((e) => e.name)
    .sort();
}
