import type { MessageErrorReason } from "@verq/core";
import type { FileLedger } from "@verq/store";
import { listFiles, openQueue } from "./queue-dirs.ts";

/** One file in `error/` with the reason recorded for it. */
export interface ErrorEntry {
  readonly file: string;
  /** `unknown` for a file the database has no record of (e.g. put there by hand). */
  readonly reason: MessageErrorReason | "unknown";
  readonly detail: string | null;
}

/** The files in `error/`, by name, with their recorded reasons (SPEC F5). */
export async function listErrors(root: string, ledger: FileLedger): Promise<ErrorEntry[]> {
  const files = listFiles(openQueue(root).error);
  const known = await ledger.errorsFor(files);
  return files.map((file) => {
    const m = known.get(file);
    return { file, reason: m?.reason ?? "unknown", detail: m?.detail ?? null };
  });
}
