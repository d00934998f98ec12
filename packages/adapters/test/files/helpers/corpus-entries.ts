import { createHash, randomUUID } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";

/** What a symbolic link in the inbox points to. */
export type LinkTarget = "outside-file" | "outside-dir" | "dangling" | "inside";

/**
 * One thing put into the inbox before a run. `grow`: a file a child process keeps appending to
 * during the run; `vanish`: a file removed by the handler of an earlier file, after the listing.
 */
export type CorpusEntry =
  | { readonly kind: "file"; readonly name: string; readonly base64: string }
  | { readonly kind: "link"; readonly name: string; readonly target: LinkTarget }
  | { readonly kind: "dir"; readonly name: string }
  | { readonly kind: "grow"; readonly name: string }
  | { readonly kind: "vanish"; readonly name: string };

/** A kept case of `corpus/`: the entries and why it is kept. */
export interface CorpusCase {
  readonly why: string;
  readonly entries: readonly CorpusEntry[];
}

const valid = (id: string) => JSON.stringify({ msg_id: id, order_no: `O-${id}`, seq: 1, amount: 10 });
const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64");

const contents: fc.Arbitrary<string> = fc.oneof(
  fc.constant(b64(valid("V1"))),
  fc.constant(b64(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid("BOM"))]))),
  fc.constant(b64("")),
  fc.constant(b64(`{"msg_id":"N\u0000UL","order_no":"O","seq":1,"amount":1}`)),
  fc.constant(b64(Buffer.from([0x7b, 0x00, 0x00, 0x7d]))),
  fc.constant(b64(Buffer.concat([Buffer.from('{"msg_id":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]))),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => b64(valid("HUGE").replace("}", `,"line":"${"x".repeat(n)}"}`))),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => b64(Buffer.from(bytes))),
  fc.json().map((text) => b64(text)),
);

/** A name of `bytes` UTF-8 bytes at most (with `.json`), made of one repeated character. */
const longName = fc.tuple(fc.constantFrom("a", "ü", "日", "😀", " "), fc.integer({ min: 170, max: 250 })).map(([ch, budget]) => {
  let stem = "x";
  while (Buffer.byteLength(stem + ch) <= budget) stem += ch;
  return `${stem}.json`;
});

const shortName = fc
  .tuple(
    fc.string({
      unit: fc.constantFrom("a", "Z", "ü", "日", "😀", " ", "\n", "\r", ".", "-", "~", "\u200b"),
      minLength: 1,
      maxLength: 12,
    }),
    fc.constantFrom(".json", ".json", ".txt", ".json.tmp", ""),
  )
  .map(([stem, ext]) => stem + ext)
  .filter((n) => n !== "." && n !== ".." && !n.startsWith("vanish-"));

/** Names: long ones up to the filesystem's 255 bytes, newlines, unicode, leading dots and spaces. */
export const entryName: fc.Arbitrary<string> = fc.oneof(shortName, longName);

/** One generated inbox entry. */
export const entryArb: fc.Arbitrary<CorpusEntry> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("file" as const), name: entryName, base64: contents }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("link" as const),
      name: entryName,
      target: fc.constantFrom<LinkTarget>("outside-file", "outside-dir", "dangling", "inside"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dir" as const), name: entryName }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("grow" as const), name: entryName }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 99 }).map((i) => ({ kind: "vanish" as const, name: `vanish-${i}.json` })) },
);

/** Up to 8 entries with distinct names. */
export const entriesArb = fc.uniqueArray(entryArb, { minLength: 1, maxLength: 8, selector: (e) => e.name });

/** The file whose handler removes the `vanish` files: it sorts first in the inbox. */
export const HOOK_FILE = "\thook.json";

/** Where the links of a case point: `outside/` is a sibling of the queue root. */
export function linkTarget(dir: string, inbox: string, target: LinkTarget): string {
  switch (target) {
    case "outside-file":
      return join(dir, "outside", "message.json");
    case "outside-dir":
      return join(dir, "outside", "sub");
    case "dangling":
      return join(dir, "outside", "absent.json");
    case "inside":
      return join(inbox, HOOK_FILE);
  }
}

/** Creates `outside/` (a message, a folder with a file) next to the queue root. */
export function makeOutside(dir: string): void {
  mkdirSync(join(dir, "outside", "sub"), { recursive: true });
  writeFileSync(join(dir, "outside", "message.json"), valid("OUTSIDE"));
  writeFileSync(join(dir, "outside", "sub", "inner.json"), valid("INNER"));
}

/**
 * Writes the entries and the hook file into the inbox; returns the hook file's text (its
 * `msg_id` is new, so that its handler runs although the ledger is shared between runs).
 */
export function materialize(dir: string, inbox: string, entries: readonly CorpusEntry[]): string {
  const hookText = valid(`HOOK-${randomUUID()}`);
  writeFileSync(join(inbox, HOOK_FILE), hookText);
  for (const e of entries) {
    const path = join(inbox, e.name);
    if (e.kind === "file") writeFileSync(path, Buffer.from(e.base64, "base64"));
    else if (e.kind === "link") symlinkSync(linkTarget(dir, inbox, e.target), path);
    else if (e.kind === "dir") mkdirSync(path);
    else if (e.kind === "grow") writeFileSync(path, '{"msg_id":"G","order_no":"O","seq":1,"amount":1}');
    else writeFileSync(path, valid("VANISH"));
  }
  return hookText;
}

/** Path → sha256 and mtime of everything under `root`, links as their text: what must not change. */
export function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string): void => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) out[path] = `link ${readlinkSync(path)} ${st.mtimeMs}`;
    else if (st.isDirectory()) {
      out[path] = `dir ${st.mtimeMs}`;
      for (const n of readdirSync(path)) walk(join(path, n));
    } else out[path] = `${createHash("sha256").update(readFileSync(path)).digest("hex")} ${st.mtimeMs}`;
  };
  walk(root);
  return out;
}
