import { join } from "node:path";
import { decodeMessage } from "./message-decoder.ts";
import { validateMessage } from "./message-validator.ts";
import type { FileQueueProfile } from "./profile.ts";
import { isMessageFileName, listFiles, openQueue } from "./queue-dirs.ts";
import { DEFAULT_MAX_BYTES, readClaimedFile } from "./read-claimed-file.ts";

/** One line of `files schema`: a field, its JSON type(s), and its role. */
export interface SchemaField {
  readonly field: string;
  /** `string`, `integer`, `number`, `boolean`, `null`, `array` or `object`; several joined by `|`. */
  readonly type: string;
  readonly role: "idempotency-key" | "sequence" | "";
}

/** The inferred fields and how many valid messages they come from. */
export interface InferredSchema {
  readonly fields: readonly SchemaField[];
  readonly messages: number;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * SPEC F9: the fields of the valid messages in `inbox/` and `done/` (files in `error/` are
 * left out), with their JSON types and the profile's roles (`idempotency-key`, `sequence`).
 * A field seen both as integer and as fraction is `number`; other mixtures are joined by `|`.
 * The profile's fields come first in its order, then the others as first seen (files by name).
 * Files are read without being claimed; one that vanishes meanwhile is skipped.
 */
export function inferSchema(root: string, profile: FileQueueProfile, maxBytes = DEFAULT_MAX_BYTES): InferredSchema {
  const dirs = openQueue(root);
  const types = new Map<string, Set<string>>();
  for (const name of Object.keys(profile.fields)) types.set(name, new Set());
  let messages = 0;
  for (const dir of [dirs.inbox, dirs.done]) {
    for (const name of listFiles(dir, isMessageFileName)) {
      let read;
      try {
        read = readClaimedFile(join(dir, name), maxBytes);
      } catch {
        continue;
      }
      if (!read.ok) continue;
      const decoded = decodeMessage(read.bytes);
      if (!decoded.ok || !validateMessage(decoded.value, profile).ok) continue;
      messages++;
      for (const [field, value] of Object.entries(decoded.value)) {
        let seen = types.get(field);
        if (seen === undefined) types.set(field, (seen = new Set()));
        seen.add(jsonType(value));
      }
    }
  }
  if (messages === 0) return { fields: [], messages };
  const fields = [...types]
    .filter(([, seen]) => seen.size > 0)
    .map(([field, seen]): SchemaField => {
      if (seen.has("number")) seen.delete("integer");
      const role = field === profile.idempotencyKey ? "idempotency-key" : field === profile.sequence ? "sequence" : "";
      return { field, type: [...seen].sort().join("|"), role };
    });
  return { fields, messages };
}
