import { assign, not, setup } from "xstate";
import type { MessageCommand } from "./message.commands.ts";
import { evolveMessage } from "./message.evolve.ts";
import { messageEvents, type MessageEvent } from "./message.events.ts";
import { MESSAGE_ERROR_REASONS, type Message } from "./message.types.ts";

/**
 * Why the machine refused a command. Refusals are data (the machine stays where it was and no
 * event is emitted); the store turns them into a coded error or a `false`: a claim of a
 * message `in-processing`, `already-done` or `in-error` (only a replay brings it back); a record
 * or reject of a message that is `not-processing`, or with a `stale-claim` (not its current
 * claim id), or with an `unknown-reason`; a replay of a message `not-in-error`; `unhandled`
 * when no transition took the command.
 */
export type MessageRefusal =
  | "in-processing"
  | "already-done"
  | "in-error"
  | "not-processing"
  | "stale-claim"
  | "unknown-reason"
  | "not-in-error"
  | "unhandled";

/** The machine's context: the message, the events a transition emitted, and a refusal if any. */
export interface MessageMachineContext {
  readonly message: Message;
  readonly emitted: readonly MessageEvent[];
  readonly refusal: MessageRefusal | null;
}

const record = (context: MessageMachineContext, event: MessageEvent): Partial<MessageMachineContext> => ({
  message: evolveMessage(context.message, event),
  emitted: [...context.emitted, event],
});

/**
 * The life of one file in the directory queue (SPEC F1–F3, F8): inbox → processing by a
 * claim (one atomic rename); processing → done when the message was recorded in `processed`
 * or stopped there as a duplicate; processing → error with a reason (never back to the inbox:
 * a poison message must not block the queue); error → inbox only by replay.
 *
 * Guards carry the rules: only the current claim may finish a message (a late writer with an
 * old claim id is refused), and only a known reason quarantines it. Actions only assign: each
 * appends the event it stands for to `context.emitted` and folds it into `context.message` with
 * {@link evolveMessage}. No side effects: the same definition runs in the store, in tests and
 * in the Stately visualizer.
 */
export const messageMachine = setup({
  types: {
    context: {} as MessageMachineContext,
    events: {} as MessageCommand,
    input: {} as Message,
  },
  guards: {
    claimMatches: ({ context, event }) =>
      (event.type === "message.record" || event.type === "message.reject") && event.claimId === context.message.claimId,
    knownReason: ({ event }) => event.type === "message.reject" && MESSAGE_ERROR_REASONS.includes(event.reason),
    isDuplicate: ({ event }) => event.type === "message.record" && event.outcome === "duplicate",
  },
  actions: {
    refuse: assign((_, params: { refusal: MessageRefusal }) => ({ refusal: params.refusal })),
    claim: assign(({ context, event }) => {
      if (event.type !== "message.claim") return {};
      const { claimId, owner, file, recovered, now } = event;
      return record(context, messageEvents.claimed({ claimId, owner, file, recovered, at: now }));
    }),
    recordMessage: assign(({ context, event }) => {
      if (event.type !== "message.record") return {};
      const { claimId, key, group, sequence, amount, message, file, now } = event;
      return record(context, messageEvents.recorded({ claimId, key, group, sequence, amount, message, file, at: now }));
    }),
    recordDuplicate: assign(({ context, event }) => {
      if (event.type !== "message.record") return {};
      const { claimId, key, file, now } = event;
      return record(context, messageEvents.duplicated({ claimId, key, file, at: now }));
    }),
    reject: assign(({ context, event }) => {
      if (event.type !== "message.reject") return {};
      const { claimId, reason, detail, file, now } = event;
      return record(context, messageEvents.rejected({ claimId, reason, detail, file, at: now }));
    }),
    replay: assign(({ context, event }) => {
      if (event.type !== "message.replay") return {};
      return record(context, messageEvents.replayed({ file: event.file, by: event.by, at: event.now }));
    }),
  },
}).createMachine({
  id: "message",
  context: ({ input }) => ({ message: input, emitted: [], refusal: null }),
  initial: "inbox",
  // Fallbacks: a command that no state below accepts is refused, as data.
  on: {
    "message.record": { actions: { type: "refuse", params: { refusal: "not-processing" } } },
    "message.reject": { actions: { type: "refuse", params: { refusal: "not-processing" } } },
    "message.replay": { actions: { type: "refuse", params: { refusal: "not-in-error" } } },
  },
  states: {
    inbox: {
      on: {
        "message.claim": { target: "processing", actions: "claim" },
      },
    },
    processing: {
      on: {
        "message.claim": { actions: { type: "refuse", params: { refusal: "in-processing" } } },
        "message.record": [
          { guard: not("claimMatches"), actions: { type: "refuse", params: { refusal: "stale-claim" } } },
          { guard: "isDuplicate", target: "done", actions: "recordDuplicate" },
          { target: "done", actions: "recordMessage" },
        ],
        "message.reject": [
          { guard: not("claimMatches"), actions: { type: "refuse", params: { refusal: "stale-claim" } } },
          { guard: not("knownReason"), actions: { type: "refuse", params: { refusal: "unknown-reason" } } },
          { target: "error", actions: "reject" },
        ],
      },
    },
    done: {
      on: {
        // A finished message is never claimed again: a new file with its name is a new stream.
        "message.claim": { actions: { type: "refuse", params: { refusal: "already-done" } } },
      },
    },
    error: {
      on: {
        // SPEC F2: never back to the inbox by itself; only a replay brings it back.
        "message.claim": { actions: { type: "refuse", params: { refusal: "in-error" } } },
        "message.replay": { target: "inbox", actions: "replay" },
      },
    },
  },
});

/** The machine's type, for variants built with `messageMachine.provide(...)`. */
export type MessageMachine = typeof messageMachine;
