import fs from "node:fs";

/** The JSON lines of `file` (blank lines skipped); `[]` when the file does not exist. */
export function readJsonLines<T>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
