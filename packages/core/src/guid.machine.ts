import { assign, not, setup } from "xstate";
import type { GuidCommand } from "./guid.commands.ts";
import { evolveGuid } from "./guid.evolve.ts";
import { guidEvents, type GuidEvent, type GuidFailed, type GuidUnknown, type SendReason } from "./guid.events.ts";
import { isValidGuid } from "./guid.input.ts";
import { isOldEnough, retentionCoversResendWindow } from "./guid.rules.ts";
import type { GuidEntry } from "./guid.types.ts";

/**
 * Why the machine refused a command. Refusals are data (the machine stays where it was and no
 * event is emitted). For a channel repeat (`guid.repeat`) the refusal is the answer:
 * `replay` → the stored response, `in-progress` → E903, `outcome-unknown` → E901,
 * `attempts-exhausted` → E902, `payload-mismatch` → E422. A first receipt is refused as
 * `invalid-guid` (not a GUID), `stream-id-mismatch` (another GUID than the stream's) or
 * `already-received` (the stream exists); any other command for a GUID with no events as
 * `unknown-guid`. The others refuse a move of the relay or an operator: `not-received` (send), `not-in-flight` (record, recover),
 * `stale-attempt` (a record for an earlier attempt), `too-young` (resolve, recover, purge
 * before their age), `not-unknown` (resolve), `not-failed` (reprocess), `not-done` (purge of
 * an entry older than the retention in another state than DONE),
 * `retention-too-short` (purge, SPEC G7), and `unhandled` (no transition took the command).
 */
export type GuidRefusal =
  | "invalid-guid"
  | "stream-id-mismatch"
  | "already-received"
  | "unknown-guid"
  | "payload-mismatch"
  | "in-progress"
  | "replay"
  | "outcome-unknown"
  | "attempts-exhausted"
  | "not-received"
  | "not-in-flight"
  | "stale-attempt"
  | "too-young"
  | "not-unknown"
  | "not-failed"
  | "not-done"
  | "retention-too-short"
  | "unhandled";

/** The machine's context: the entry (NEW before its first event), the events a transition emitted, and a refusal if any. */
export interface GuidMachineContext {
  readonly entry: GuidEntry;
  readonly emitted: readonly GuidEvent[];
  readonly refusal: GuidRefusal | null;
}

const record = (context: GuidMachineContext, event: GuidEvent): Partial<GuidMachineContext> => ({
  entry: evolveGuid(context.entry, event),
  emitted: [...context.emitted, event],
});

/**
 * The GUID lifecycle of the idempotency ledger (SPEC G3–G7, docs/architecture.md, "Design"): NEW → RECEIVED
 * by the channel's first receipt of a valid GUID under its own stream (the claim, SPEC G4);
 * RECEIVED → SENT → DONE | UNKNOWN | FAILED; UNKNOWN → DONE | FAILED only by the core's
 * inquiry, and only once older than the min age; FAILED → SENT by reprocess or a channel
 * resend, with the same GUID, below the attempt cap; RECEIVED → FAILED and SENT → UNKNOWN by
 * the recovery sweep; DONE purged once older than a retention longer than the resend window
 * (every purge is refused with a shorter retention, and every entry younger than the retention
 * is refused as too young, whatever its state). A repeat with another payload is refused in
 * every state.
 *
 * Guards carry every rule; actions only assign: each appends the event it stands for to
 * `context.emitted` and folds it into `context.entry` with {@link evolveGuid}. No side effects:
 * the same definition runs in the store, in property tests and in the Stately visualizer.
 */
export const guidMachine = setup({
  types: {
    context: {} as GuidMachineContext,
    events: {} as GuidCommand,
    input: {} as GuidEntry,
  },
  guards: {
    // The id rule (GUID_PATTERN): a GUID is safe in a URL path, a log line and a file name.
    validGuid: ({ event }) => event.type === "guid.receive" && isValidGuid(event.guid),
    // A stream is named after its GUID: the receipt of another GUID cannot create it.
    guidNamesStream: ({ context, event }) => event.type === "guid.receive" && event.guid === context.entry.guid,
    payloadDiffers: ({ context, event }) => event.type === "guid.repeat" && event.fingerprint !== context.entry.fingerprint,
    belowAttemptCap: ({ context, event }) =>
      (event.type === "guid.repeat" || event.type === "guid.reprocess") && context.entry.attempts < event.maxAttempts,
    isCurrentAttempt: ({ context, event }) => event.type === "guid.record" && event.attempt === context.entry.attempts,
    outcomeAnswered: ({ event }) => event.type === "guid.record" && event.outcome.kind === "answered",
    outcomeNotSent: ({ event }) => event.type === "guid.record" && event.outcome.kind === "not-sent",
    olderThanMinAge: ({ context, event }) =>
      event.type === "guid.resolve" && isOldEnough(context.entry, event.now, event.minAgeMs),
    inquiryFound: ({ event }) => event.type === "guid.resolve" && event.answer.kind === "found",
    olderThanRecoveryLimit: ({ context, event }) =>
      event.type === "guid.recover" && isOldEnough(context.entry, event.now, event.olderThanMs),
    retentionCoversResendWindow: ({ event }) =>
      event.type === "guid.purge" && retentionCoversResendWindow(event.retentionMs, event.resendWindowMs),
    olderThanRetention: ({ context, event }) =>
      event.type === "guid.purge" && isOldEnough(context.entry, event.now, event.retentionMs),
  },
  actions: {
    refuse: assign((_, params: { refusal: GuidRefusal }) => ({ refusal: params.refusal })),
    receive: assign(({ context, event }) => {
      if (event.type !== "guid.receive") return {};
      const { guid, request, fingerprint, now } = event;
      return record(context, guidEvents.received({ guid, request, fingerprint, at: now }));
    }),
    send: assign(({ context, event }, params: { by: SendReason }) =>
      record(context, guidEvents.sent({ attempt: context.entry.attempts + 1, by: params.by, at: event.now })),
    ),
    complete: assign(({ context, event }) => {
      if (event.type === "guid.record" && event.outcome.kind === "answered") {
        const { code, response } = event.outcome;
        return record(context, guidEvents.done({ code, response, via: "answer", at: event.now }));
      }
      if (event.type === "guid.resolve" && event.answer.kind === "found") {
        const { code, response } = event.answer;
        return record(context, guidEvents.done({ code, response, via: "inquiry", at: event.now }));
      }
      return {};
    }),
    lose: assign(({ context, event }) => {
      const reason: GuidUnknown["data"]["reason"] =
        event.type === "guid.recover"
          ? "recovered"
          : event.type === "guid.record" && event.outcome.kind === "invalid-answer"
            ? "invalid-answer"
            : "no-answer";
      return record(context, guidEvents.unknown({ reason, at: event.now }));
    }),
    fail: assign(({ context, event }, params: { reason: GuidFailed["data"]["reason"] }) =>
      record(context, guidEvents.failed({ reason: params.reason, at: event.now })),
    ),
    purge: assign(({ context, event }) => {
      if (event.type !== "guid.purge") return {};
      return record(
        context,
        guidEvents.purged({ retentionMs: event.retentionMs, resendWindowMs: event.resendWindowMs, at: event.now }),
      );
    }),
  },
}).createMachine({
  id: "guid",
  context: ({ input }) => ({ entry: input, emitted: [], refusal: null }),
  initial: "NEW",
  // Fallbacks: a command that no state below accepts is refused, as data.
  on: {
    "guid.receive": { actions: { type: "refuse", params: { refusal: "already-received" } } },
    "guid.send": { actions: { type: "refuse", params: { refusal: "not-received" } } },
    "guid.record": { actions: { type: "refuse", params: { refusal: "not-in-flight" } } },
    "guid.resolve": { actions: { type: "refuse", params: { refusal: "not-unknown" } } },
    "guid.reprocess": { actions: { type: "refuse", params: { refusal: "not-failed" } } },
    "guid.recover": { actions: { type: "refuse", params: { refusal: "not-in-flight" } } },
    // SPEC G7 in every state, in one order: the retention first, then the age, then the state.
    "guid.purge": [
      { guard: not("retentionCoversResendWindow"), actions: { type: "refuse", params: { refusal: "retention-too-short" } } },
      { guard: not("olderThanRetention"), actions: { type: "refuse", params: { refusal: "too-young" } } },
      { actions: { type: "refuse", params: { refusal: "not-done" } } },
    ],
  },
  states: {
    // No events yet: the stream is created by the channel's first receipt; nothing else knows it.
    NEW: {
      on: {
        "guid.receive": [
          { guard: not("validGuid"), actions: { type: "refuse", params: { refusal: "invalid-guid" } } },
          { guard: not("guidNamesStream"), actions: { type: "refuse", params: { refusal: "stream-id-mismatch" } } },
          { target: "RECEIVED", actions: "receive" },
        ],
        "guid.send": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        "guid.repeat": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        "guid.record": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        "guid.resolve": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        "guid.reprocess": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        "guid.recover": { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        // The purge command itself is judged here too, so a retention shorter than the resend
        // window is refused even when the ledger has no entry to decide it on.
        "guid.purge": [
          { guard: not("retentionCoversResendWindow"), actions: { type: "refuse", params: { refusal: "retention-too-short" } } },
          { actions: { type: "refuse", params: { refusal: "unknown-guid" } } },
        ],
      },
    },
    RECEIVED: {
      on: {
        "guid.send": { target: "SENT", actions: { type: "send", params: { by: "claim" } } },
        "guid.repeat": [
          { guard: "payloadDiffers", actions: { type: "refuse", params: { refusal: "payload-mismatch" } } },
          // G3: RECEIVED is answered as SENT.
          { actions: { type: "refuse", params: { refusal: "in-progress" } } },
        ],
        "guid.recover": [
          { guard: not("olderThanRecoveryLimit"), actions: { type: "refuse", params: { refusal: "too-young" } } },
          // Claimed and never handed to the core: certainly not sent.
          { target: "FAILED", actions: { type: "fail", params: { reason: "recovered" } } },
        ],
      },
    },
    SENT: {
      on: {
        "guid.repeat": [
          { guard: "payloadDiffers", actions: { type: "refuse", params: { refusal: "payload-mismatch" } } },
          { actions: { type: "refuse", params: { refusal: "in-progress" } } },
        ],
        "guid.record": [
          { guard: not("isCurrentAttempt"), actions: { type: "refuse", params: { refusal: "stale-attempt" } } },
          { guard: "outcomeAnswered", target: "DONE", actions: "complete" },
          { guard: "outcomeNotSent", target: "FAILED", actions: { type: "fail", params: { reason: "not-sent" } } },
          // No answer in time, or an answer that is not a valid core answer: the core may have acted.
          { target: "UNKNOWN", actions: "lose" },
        ],
        "guid.recover": [
          { guard: not("olderThanRecoveryLimit"), actions: { type: "refuse", params: { refusal: "too-young" } } },
          // Handed to the core by a relay that died: maybe sent.
          { target: "UNKNOWN", actions: "lose" },
        ],
      },
    },
    DONE: {
      on: {
        "guid.repeat": [
          { guard: "payloadDiffers", actions: { type: "refuse", params: { refusal: "payload-mismatch" } } },
          { actions: { type: "refuse", params: { refusal: "replay" } } },
        ],
        "guid.purge": [
          { guard: not("retentionCoversResendWindow"), actions: { type: "refuse", params: { refusal: "retention-too-short" } } },
          { guard: not("olderThanRetention"), actions: { type: "refuse", params: { refusal: "too-young" } } },
          { actions: "purge" },
        ],
      },
    },
    UNKNOWN: {
      on: {
        "guid.repeat": [
          { guard: "payloadDiffers", actions: { type: "refuse", params: { refusal: "payload-mismatch" } } },
          // G3: E901, and the core is not called.
          { actions: { type: "refuse", params: { refusal: "outcome-unknown" } } },
        ],
        "guid.resolve": [
          // G5: a younger entry may still be in flight; asking now could wrongly hear "not found".
          { guard: not("olderThanMinAge"), actions: { type: "refuse", params: { refusal: "too-young" } } },
          { guard: "inquiryFound", target: "DONE", actions: "complete" },
          { target: "FAILED", actions: { type: "fail", params: { reason: "not-found" } } },
        ],
      },
    },
    FAILED: {
      on: {
        "guid.repeat": [
          { guard: "payloadDiffers", actions: { type: "refuse", params: { refusal: "payload-mismatch" } } },
          { guard: "belowAttemptCap", target: "SENT", actions: { type: "send", params: { by: "channel" } } },
          { actions: { type: "refuse", params: { refusal: "attempts-exhausted" } } },
        ],
        "guid.reprocess": [
          { guard: "belowAttemptCap", target: "SENT", actions: { type: "send", params: { by: "reprocess" } } },
          { actions: { type: "refuse", params: { refusal: "attempts-exhausted" } } },
        ],
      },
    },
  },
});

/** The machine's type, for variants built with `guidMachine.provide(...)`. */
export type GuidMachine = typeof guidMachine;
