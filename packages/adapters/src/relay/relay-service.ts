import { checkMaxAttempts, isVerqError, readChannelRequest, type GuidRefusal, type LedgerEntry } from "@verq/core";
import {
  verqTracing,
  type GuidLedger,
  type LedgerStats,
  type PurgeResult,
  type ReceiveResult,
  type RecoverResult,
  type StoredEvent,
  type VerqLogger,
  type VerqSpan,
} from "@verq/store";
import type { CoreClient } from "./core-client.ts";
import { failpoint } from "../failpoints.ts";
import { msSince } from "../log-fields.ts";
import { deliver, type RelayBoundary, type RelayContext } from "./relay-context.ts";
import { badRequestReply, replyFor, type RelayReply } from "./relay-reply.ts";
import type { BulkPacing } from "./bulk-pacing.ts";
import { reprocessFailed, type ReprocessReport } from "./reprocess-failed.ts";
import { resolveUnknown, type ResolveReport } from "./resolve-unknown.ts";

/** Settings of a relay. */
export interface RelayServiceOptions {
  readonly ledger: GuidLedger;
  readonly core: CoreClient;
  /**
   * How many times a GUID may be handed to the core in all (first send, channel resends of a
   * FAILED entry): 5 by default. Reprocess has its own cap, counted on the same attempts.
   */
  readonly maxAttempts?: number;
  /**
   * Where the relay logs, never a request or an answer: each channel request at info (guid,
   * `kind` claimed, resend or repeat, `from` the state it found, `to` the state it answers with,
   * attempt, status, replayed, durationMs; a request refused before the ledger with its status
   * and code), each core call at debug (see `deliver`), each recovery sweep that moved entries
   * at warn (their GUIDs). None by default.
   */
  readonly logger?: VerqLogger;
}

/** A GUID's entry and its event timeline, for `verq relay show`. */
export interface GuidReport {
  readonly entry: LedgerEntry;
  readonly events: readonly StoredEvent[];
}

/**
 * The GUID relay (SPEC G1–G9) between a channel that resends on timeout and a core that is
 * not idempotent. For each channel request it writes before it sends: claim (RECEIVED) →
 * SENT → call the core → record DONE, UNKNOWN or FAILED → answer. A repeated GUID is answered
 * from the ledger and reaches the core only when its entry is FAILED. It keeps nothing in
 * memory: every fact is in the ledger (G8), so a restarted relay continues where the last
 * one stopped. Operators settle what is left with {@link resolve}, {@link reprocess},
 * {@link recover} and {@link purge}.
 *
 * @example
 * const relay = new RelayService({ ledger: new GuidLedger(store), core: createHttpCoreClient({ url }) });
 * const reply = await relay.transfer('{"guid":"t-1","amount":700}'); // { status: 200, body: core's answer }
 */
export class RelayService {
  readonly ledger: GuidLedger;
  readonly #context: RelayContext;
  readonly #maxAttempts: number;
  readonly #log: VerqLogger | undefined;

  constructor(options: RelayServiceOptions) {
    this.ledger = options.ledger;
    this.#maxAttempts = checkMaxAttempts(options.maxAttempts ?? 5);
    this.#log = options.logger;
    this.#context = { ledger: options.ledger, core: options.core, logger: options.logger };
  }

  /**
   * Handles one channel request (`POST /transfer`), given as its exact text. Invalid JSON, a
   * missing or malformed GUID → HTTP 400 and nothing recorded; the GUID known with another
   * payload → 422 (`E422`), never sent; otherwise HTTP 200 with the core's answer or the
   * relay's code (SPEC G3). Traced as `verq.relay.receive` (with the GUID; the core call and
   * the record of its outcome are its children), a child of the active context.
   */
  async transfer(text: string): Promise<RelayReply> {
    const span = verqTracing().start("verq.relay.receive", {}, { kind: "server" });
    try {
      return await span.run(() => this.#transfer(text, span));
    } catch (error) {
      const code = isVerqError(error) ? error.code : "VERQ_UNEXPECTED";
      span.fail(code, { "verq.error.code": code });
      throw error;
    } finally {
      span.end();
    }
  }

  async #transfer(text: string, span: VerqSpan): Promise<RelayReply> {
    const started = performance.now();
    const request = readChannelRequest(text);
    if (!request.ok) {
      const reply = badRequestReply(request.problem);
      span.set({ "verq.relay.status": reply.status, "verq.relay.problem": request.problem });
      this.#log?.info({ status: reply.status, problem: request.problem, durationMs: msSince(started) }, "transfer refused");
      return reply;
    }
    const { guid } = request;
    span.set({ "verq.relay.guid": guid });
    const got = await this.ledger.receive({
      guid,
      request: text,
      fingerprint: request.fingerprint,
      maxAttempts: this.#maxAttempts,
    });
    const { reply, entry } = await this.#answer(got);
    span.set({ "verq.relay.received": got.kind, "verq.relay.state": entry.state, "verq.relay.status": reply.status });
    this.#log?.info(
      {
        guid,
        kind: got.kind,
        from: got.kind === "claimed" ? null : got.entry.state,
        to: entry.state,
        attempt: entry.attempts,
        status: reply.status,
        replayed: reply.replayed,
        durationMs: msSince(started),
      },
      "transfer answered",
    );
    return reply;
  }

  /** The answer to a received request, and the entry it answers from. */
  async #answer(got: ReceiveResult): Promise<{ reply: RelayReply; entry: LedgerEntry }> {
    const answer = (entry: LedgerEntry, refusal: GuidRefusal | null = null) => ({ reply: replyFor(entry, refusal), entry });
    switch (got.kind) {
      case "repeat":
        return answer(got.entry, got.refusal);
      case "resend":
        return answer(await deliver(this.#context, got.entry));
      case "claimed": {
        failpoint("relay.afterClaim" satisfies RelayBoundary);
        const sent = await this.ledger.send(got.entry.guid);
        // Refused when the entry moved on meanwhile (e.g. a sweep found it FAILED): do not send.
        if (!sent.accepted) return answer(sent.entry);
        return answer(await deliver(this.#context, sent.entry));
      }
    }
  }

  /** Settles UNKNOWN entries at least `minAgeMs` old by the core's inquiry (SPEC G5). */
  async resolve(options: { minAgeMs: number; limit?: number } & BulkPacing): Promise<ResolveReport> {
    return resolveUnknown(this.#context, options);
  }

  /** Sends FAILED entries again with the same GUID, below `maxAttempts`; never UNKNOWN (SPEC G6). */
  async reprocess(options: { maxAttempts: number; limit?: number } & BulkPacing): Promise<ReprocessReport> {
    checkMaxAttempts(options.maxAttempts);
    return reprocessFailed(this.#context, options);
  }

  /** The recovery sweep after a relay died mid-request: RECEIVED → FAILED, SENT → UNKNOWN, once `olderThanMs` old. */
  async recover(olderThanMs: number): Promise<RecoverResult> {
    const swept = await this.ledger.recover(olderThanMs);
    if (swept.failed.length + swept.unknown.length > 0)
      this.#log?.warn({ failed: swept.failed, unknown: swept.unknown, olderThanMs }, "recovery sweep: entries left in flight");
    return swept;
  }

  /** Deletes DONE entries older than the retention, which must exceed the resend window (SPEC G7). */
  async purge(options: { retentionMs: number; resendWindowMs: number }): Promise<PurgeResult> {
    return this.ledger.purge(options);
  }

  /** The entry and its timeline. Throws `VERQ_UNKNOWN_GUID` when the ledger has none. */
  async show(guid: string): Promise<GuidReport> {
    const events = await this.ledger.history(guid);
    const entry = await this.ledger.get(guid);
    if (entry === null) throw new Error(`guid ${guid} has events but no ledger row`);
    return { entry, events };
  }

  /** Counts by state, the oldest UNKNOWN and FAILED, attempts, the last purge. */
  async stats(): Promise<LedgerStats> {
    return this.ledger.stats();
  }
}
