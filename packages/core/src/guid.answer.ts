import { isDefiniteCode } from "./guid.codes.ts";
import { fingerprintRequest } from "./guid.fingerprint.ts";
import { isValidGuid } from "./guid.input.ts";

/** What one call of the core's `POST /transfer` gave, as the relay's core client saw it. */
export type CoreCallResult =
  /** An HTTP answer; `body` is `null` when it was not UTF-8 text or too long to keep. */
  | { readonly kind: "answered"; readonly status: number; readonly body: string | null }
  /** The request may have reached the core, but no answer came in time (timeout, reset). */
  | { readonly kind: "no-answer"; readonly reason: string }
  /** The request certainly did not leave (connection refused, no such host): nothing was written. */
  | { readonly kind: "not-sent"; readonly reason: string };

/** What one inquiry `GET /transfer/{guid}` gave. */
export type CoreInquiryResult =
  | { readonly kind: "answered"; readonly status: number; readonly body: string | null }
  | { readonly kind: "failed"; readonly reason: string };

/** The outcome of a core call, as the guid machine records it (see `guid.record`). */
export type CoreOutcome =
  /** A valid, definite core answer: `response` is its exact text. */
  | { readonly kind: "answered"; readonly code: string; readonly response: string }
  /** Sent, and no answer in time: UNKNOWN (E901). */
  | { readonly kind: "no-answer" }
  /** An answer that is not a valid core answer: UNKNOWN, the core may have acted. */
  | { readonly kind: "invalid-answer" }
  /** Certainly not sent: FAILED (E902). */
  | { readonly kind: "not-sent" };

/** What the core's inquiry API said about a GUID, as the guid machine takes it (see `guid.resolve`). */
export type InquiryAnswer =
  { readonly kind: "found"; readonly code: string; readonly response: string } | { readonly kind: "not-found" };

/**
 * Reads a core answer: valid only with HTTP 200 and a JSON object whose `guid` is the GUID
 * asked about and whose `code` is definite (`0000`, `B2xx`, `E500`). Anything else — another
 * status, another GUID, the relay's own `E9xx`, text that is not JSON — is not a core answer.
 * Pure.
 */
export function readCoreAnswer(guid: string, status: number, body: string | null): { code: string; response: string } | null {
  if (status !== 200 || body === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const answer = parsed as { guid?: unknown; code?: unknown };
  if (answer.guid !== guid || !isDefiniteCode(answer.code)) return null;
  return { code: answer.code, response: body };
}

/** Classifies a core call (docs/architecture.md, "Edges"): a valid answer, no answer, an invalid answer, or not sent. Pure. */
export function classifyCoreCall(guid: string, result: CoreCallResult): CoreOutcome {
  switch (result.kind) {
    case "not-sent":
      return { kind: "not-sent" };
    case "no-answer":
      return { kind: "no-answer" };
    case "answered": {
      const answer = readCoreAnswer(guid, result.status, result.body);
      return answer === null ? { kind: "invalid-answer" } : { kind: "answered", ...answer };
    }
  }
}

/**
 * Classifies an inquiry: `found` for HTTP 200 with a valid core answer; `not-found` only for a
 * 404 whose JSON body names the GUID asked about (a bare 404 may come from a wrong URL or a
 * proxy, and taking it as "not found" would send a processed transfer again); `null` for
 * anything else, an inquiry error that leaves the entry as it is. Pure.
 */
export function classifyInquiry(guid: string, result: CoreInquiryResult): InquiryAnswer | null {
  if (result.kind === "failed") return null;
  if (result.status === 404) return namesGuid(result.body, guid) ? { kind: "not-found" } : null;
  const answer = readCoreAnswer(guid, result.status, result.body);
  return answer === null ? null : { kind: "found", ...answer };
}

function namesGuid(body: string | null, guid: string): boolean {
  if (body === null) return false;
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === "object" && parsed !== null && (parsed as { guid?: unknown }).guid === guid;
  } catch {
    return false;
  }
}

/** Why a channel request is refused before anything is recorded; each maps to HTTP 400. */
export type ChannelRequestProblem = "invalid-json" | "not-an-object" | "missing-guid" | "invalid-guid";

/** A channel request, read: its GUID, its exact text and its fingerprint; or why it is refused. */
export type ChannelRequest =
  | { readonly ok: true; readonly guid: string; readonly request: string; readonly fingerprint: string }
  | { readonly ok: false; readonly problem: ChannelRequestProblem };

/**
 * Reads a channel's `POST /transfer` body: a JSON object with a string `guid` matching
 * `GUID_PATTERN`. The fingerprint covers the whole object in canonical form. Pure.
 */
export function readChannelRequest(text: string): ChannelRequest {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, problem: "invalid-json" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, problem: "not-an-object" };
  const guid = (body as { guid?: unknown }).guid;
  if (guid === undefined || guid === null || guid === "") return { ok: false, problem: "missing-guid" };
  if (!isValidGuid(guid)) return { ok: false, problem: "invalid-guid" };
  let fingerprint: string;
  try {
    fingerprint = fingerprintRequest(body);
  } catch {
    // JSON.parse accepts numbers such as 1e999 that are not finite: not a request anyone can replay.
    return { ok: false, problem: "invalid-json" };
  }
  return { ok: true, guid, request: text, fingerprint };
}

/** The relay's own answer for `guid`: `{"guid":…,"code":…}` (for E901, E902, E903, E422). */
export function relayAnswer(guid: string, code: string): string {
  return JSON.stringify({ guid, code });
}
