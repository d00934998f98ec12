import { createHash } from "node:crypto";
import { extname } from "node:path";

/**
 * The longest name, in UTF-8 bytes, a file keeps in the queue. A name component may be 255
 * bytes on the filesystems a queue lives on; a claimed file carries the longest prefix a
 * `processing/` name can have, `<claimId>~<pid>@<host>~` (32 + 1 + 10 + 1 + 32 + 1 = 77 bytes,
 * see `claim-name.ts`), so 255 − 77 = 178 is left. The budget is fixed rather than this
 * consumer's own prefix so that a takeover by a consumer on a host with a longer name never
 * meets `ENAMETOOLONG` either; a `~<claimId>` tag in `done/` or `error/` (F3) fits as well.
 */
export const MAX_QUEUE_NAME_BYTES = 178;

const HASH_HEX = 8;

/** The first code points of `text` that fit in `bytes` UTF-8 bytes (a character is never cut). */
function cutToBytes(text: string, bytes: number): string {
  let out = "";
  let used = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > bytes) break;
    out += ch;
    used += n;
  }
  return out;
}

/**
 * The name an inbox file is claimed under, and keeps in `processing/`, `done/`, `error/` and
 * the event log. A name of at most {@link MAX_QUEUE_NAME_BYTES} bytes is kept as it is; a
 * longer one is cut, on a character boundary, and given `~` and the first 8 hex digits of the
 * SHA-256 of the whole name before its extension: `aaa…a~1f2e3d4c.json`. The name is a pure
 * function of the inbox name, so two long names that share their first bytes stay apart, and
 * a replayed file keeps the shortened name.
 *
 * @example queueName(`${"a".repeat(250)}.json`) // "aaa…a~<8 hex>.json", 178 bytes
 */
export function queueName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_QUEUE_NAME_BYTES) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, HASH_HEX);
  const rawExt = extname(name);
  const ext = Buffer.byteLength(rawExt) <= 16 ? rawExt : "";
  const stem = name.slice(0, name.length - ext.length);
  const room = MAX_QUEUE_NAME_BYTES - Buffer.byteLength(ext) - 1 - HASH_HEX;
  return `${cutToBytes(stem, room)}~${hash}${ext}`;
}
