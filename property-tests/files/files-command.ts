import type fc from "fast-check";
import type { FilesWorld } from "./files-world.ts";

/** One step of the file-queue model: a call of one `FileLedger` method, checked against the machine. */
export type FilesCommand = fc.AsyncCommand<FilesWorld, FilesWorld>;
