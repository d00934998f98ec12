import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh directory under the OS temp dir, and a way to remove it with everything in it. */
export interface TempDir {
  readonly path: string;
  /** A path inside the directory (the file need not exist). */
  file(name: string): string;
  remove(): void;
}

/** Creates `verq-<prefix>-XXXXXX` under `os.tmpdir()`. Tests remove it in `afterEach`/`afterAll`. */
export function makeTempDir(prefix: string): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `verq-${prefix}-`));
  return {
    path: dir,
    file: (name) => path.join(dir, name),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
