import { VerqError, type CoreCallResult, type CoreInquiryResult } from "@verq/core";
import { Pool } from "undici";
import type { CoreClient } from "./core-client.ts";

/** Where and how the relay reaches the core over HTTP. */
export interface HttpCoreClientOptions {
  /** The core's base URL, e.g. `http://127.0.0.1:8081`; `/transfer` is appended. */
  readonly url: string;
  /** How long to wait for the whole answer: 10 s by default. */
  readonly timeoutMs?: number;
  /** Longest answer kept, in bytes; a longer one is not a valid answer: 1 MiB by default. */
  readonly maxAnswerBytes?: number;
}

// Errors raised before a single byte of the request could be written: the connection was
// refused, the host does not resolve or cannot be reached, or the connect itself timed out.
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * A {@link CoreClient} over undici (Node's HTTP client; no redirects are followed). It tells the two failures apart that the ledger must keep
 * apart (SPEC G3):
 * - connection refused, unknown host, connect timeout: `not-sent` → FAILED (E902), safe to
 *   send again;
 * - anything after that (the overall timeout, a reset, a body cut short): `no-answer` →
 *   UNKNOWN (E901), because the core may have processed the request.
 * The overall timeout covers the answer's body too. An answer that is not UTF-8, or longer than
 * `maxAnswerBytes`, is returned with `body: null` (not a valid answer → UNKNOWN).
 */
export function createHttpCoreClient(options: HttpCoreClientOptions): CoreClient {
  const { origin, path } = parseBase(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAnswerBytes = options.maxAnswerBytes ?? 1_048_576;

  // One keep-alive pool for the core's one origin, called with undici's own `request` (the HTTP
  // client behind `fetch`, with the same error codes) without fetch's WHATWG streams and without
  // an Agent's per-call lookup of the origin's pool. The overall timeout is one timer and one
  // AbortController per call: `AbortSignal.timeout` cost up to a few hundred µs a call here.
  const pool = new Pool(origin, { connections: 64 });
  const call = async (url: string, method: "GET" | "POST", body?: string): Promise<{ status: number; body: string | null }> => {
    const headers = body === undefined ? {} : { "content-type": "application/json" };
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      timeoutMs,
    );
    try {
      const response = await pool.request({ path: url, method, headers, body, signal: controller.signal });
      const bytes = new Uint8Array(await response.body.arrayBuffer());
      return { status: response.statusCode, body: bytes.byteLength > maxAnswerBytes ? null : decodeUtf8(bytes) };
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async transfer(_guid: string, request: string): Promise<CoreCallResult> {
      try {
        const answer = await call(`${path}/transfer`, "POST", request);
        return { kind: "answered", ...answer };
      } catch (error) {
        const code = networkCode(error);
        return NOT_SENT_CODES.has(code) ? { kind: "not-sent", reason: code } : { kind: "no-answer", reason: code };
      }
    },
    async inquire(guid: string): Promise<CoreInquiryResult> {
      try {
        return { kind: "answered", ...(await call(`${path}/transfer/${encodeURIComponent(guid)}`, "GET")) };
      } catch (error) {
        return { kind: "failed", reason: networkCode(error) };
      }
    },
  };
}

/** The core's origin, for the pool, and the path its routes hang under (`/transfer` is appended; no trailing slash). */
function parseBase(url: string): { origin: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      `the core URL must be an http(s) URL such as http://127.0.0.1:8081; got ${JSON.stringify(url.slice(0, 80))}`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "the core URL must start with http:// or https://");
  }
  // The requests go to the origin and path alone: what else a URL carries would be dropped unseen.
  if (parsed.username !== "" || parsed.password !== "") {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "the core URL cannot carry a user name or password: they would not be sent");
  }
  if (parsed.search !== "" || parsed.hash !== "") {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      "the core URL cannot carry a query or a fragment: the relay appends /transfer to its path",
    );
  }
  return { origin: parsed.origin, path: parsed.pathname.replace(/\/+$/, "") };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The most specific code of a fetch failure: the socket's errno, undici's code, or the error's name. */
function networkCode(error: unknown): string {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    e = (e as { cause?: unknown }).cause;
  }
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "UNKNOWN_ERROR";
}
