import type { MessageErrorReason } from "@verq/core";
import type { ProcessedMessage } from "@verq/store";
import { decodeMessage } from "./message-decoder.ts";
import { validateMessage } from "./message-validator.ts";
import type { FileQueueProfile } from "./profile.ts";
import { readClaimedFile } from "./read-claimed-file.ts";

/** What a claimed file holds: a valid message with its fields, or why it goes to `error/`. */
export type FileVerdict =
  | { readonly kind: "valid"; readonly processed: ProcessedMessage; readonly fields: Record<string, unknown> }
  | { readonly kind: "invalid"; readonly reason: MessageErrorReason; readonly detail: string };

/**
 * Reads and judges the claimed file at `path` (SPEC F2): not a regular file → `parse` (never
 * followed or read); over `maxBytes` → `too-large` (unread); not a UTF-8 JSON object → `parse`;
 * a required field absent → `missing-field`; a field of the wrong type → `invalid-field`;
 * otherwise the valid message as `profile` reads it. The detail never quotes the file.
 */
export function examineFile(path: string, maxBytes: number, profile: FileQueueProfile): FileVerdict {
  const read = readClaimedFile(path, maxBytes);
  if (!read.ok && read.notAFile !== undefined)
    return { kind: "invalid", reason: "parse", detail: `${read.notAFile}, not a file; never followed or read` };
  if (!read.ok) return { kind: "invalid", reason: "too-large", detail: `${read.size} bytes, over the limit of ${maxBytes}` };
  const decoded = decodeMessage(read.bytes);
  if (!decoded.ok) return { kind: "invalid", reason: decoded.reason, detail: decoded.detail };
  const checked = validateMessage(decoded.value, profile);
  if (!checked.ok) return { kind: "invalid", reason: checked.reason, detail: checked.detail };
  return { kind: "valid", processed: checked.processed, fields: checked.fields };
}
