/**
 * One bad-input case as a file of `corpus/<edge>/` keeps it: a request described part by part,
 * so that a 100 KB header or a 10,000-level body stays a few lines of JSON, and what the edge
 * must answer.
 */
export interface RawCase {
  /** What the case sends, in a few words. */
  readonly name: string;
  /** The bug it found when it was kept (absent: kept as a guard of an answer that was right). */
  readonly found?: string;
  readonly request: RawRequest;
  readonly expect: Expected;
}

/** Bytes given literally, as base64, or as one text repeated: `[{"repeat":"[","times":10000}]`. */
export type Part = string | { readonly base64: string } | { readonly repeat: string; readonly times: number };

/** A request line, headers and body; each left out takes the edge's own (method, path, headers). */
export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /** Headers in order, each value built from parts; `Host` and `Connection: close` are added unless given. */
  readonly headers?: readonly (readonly [string, Part | readonly Part[]])[];
  /** Whether the edge's own headers (e.g. the receiver's `Idempotency-Key`) are sent too: true. */
  readonly edgeHeaders?: boolean;
  readonly body?: readonly Part[];
  /** `Content-Length` to announce instead of the body's length; `null` sends none. */
  readonly contentLength?: number | null;
  /** The whole request as bytes, instead of all of the above: for what is not HTTP at all. */
  readonly raw?: readonly Part[];
  /**
   * How the bytes go: `whole` (default); `cut-and-close` (the first half, then the socket is
   * destroyed); `cut-and-end` (the first half, then the client's side is ended and it waits
   * for an answer); `trickle` (one byte every `trickleMs`); `nothing` (connect, send nothing).
   */
  readonly send?: "whole" | "cut-and-close" | "cut-and-end" | "trickle" | "nothing";
  readonly trickleMs?: number;
}

/** An answer with this status and error code; or none, because the client went away first. */
export type Expected = { readonly status: number; readonly code: string } | { readonly noAnswer: true };

/** The bytes `parts` stand for. */
export function partsToBytes(parts: Part | readonly Part[]): Buffer {
  const list: readonly Part[] = typeof parts === "string" || !Array.isArray(parts) ? [parts as Part] : parts;
  return Buffer.concat(
    list.map((part) =>
      typeof part === "string"
        ? Buffer.from(part, "utf8")
        : "base64" in part
          ? Buffer.from(part.base64, "base64")
          : Buffer.from(part.repeat.repeat(part.times), "utf8"),
    ),
  );
}

/** What an edge adds to a case that leaves its request line or headers out. */
export interface EdgeDefaults {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
}

/** The bytes of `request` as it goes on the wire to an edge with `defaults`. */
export function requestBytes(request: RawRequest, defaults: EdgeDefaults): Buffer {
  if (request.raw !== undefined) return partsToBytes(request.raw);
  const body = partsToBytes(request.body ?? []);
  const headers: (readonly [string, Buffer])[] = [];
  const given = (request.headers ?? []).map(([name, value]) => [name, partsToBytes(value)] as const);
  const has = (name: string) => given.some(([n]) => n.toLowerCase() === name);
  if (!has("host")) headers.push(["Host", Buffer.from("127.0.0.1")]);
  if (!has("connection")) headers.push(["Connection", Buffer.from("close")]);
  if (request.edgeHeaders !== false) {
    for (const [name, value] of defaults.headers) if (!has(name.toLowerCase())) headers.push([name, Buffer.from(value)]);
  }
  headers.push(...given);
  const length = request.contentLength === undefined ? body.length : request.contentLength;
  if (length !== null && !has("content-length") && !has("transfer-encoding"))
    headers.push(["Content-Length", Buffer.from(String(length))]);
  const head = `${request.method ?? defaults.method} ${request.path ?? defaults.path} HTTP/1.1\r\n`;
  return Buffer.concat([
    Buffer.from(head, "latin1"),
    ...headers.flatMap(([name, value]) => [Buffer.from(`${name}: `, "latin1"), value, Buffer.from("\r\n")]),
    Buffer.from("\r\n"),
    body,
  ]);
}
