import { assign, not, setup } from "xstate";
import type { MessageCommand, MessageSettleCommand } from "./message.commands.ts";
import { evolveMessage } from "./message.evolve.ts";
import { messageEvents, type MessageEvent } from "./message.events.ts";
import { MESSAGE_ERROR_REASONS, type Message } from "./message.types.ts";

/**
 * Why the machine refused a command. Refusals are data (the machine stays where it was and no
 * event is emitted); the store turns them into a coded error, an `already` or a `null`:
 * - a settle of a new stream under another id than its claim's (`stream-id-mismatch`) or
 *   without a plain file name (`bad-file-name`);
 * - a settle naming another file than the message's (`other-file`);
 * - a settle by the claim that settled the message already (`already-settled`), of a message
 *   `already-done` by another claim, or by a `stale-claim` while another claim holds it;
 * - a rejection with an `unknown-reason`;
 * - a replay of a message `not-in-error`;
 * - `unhandled` when no transition took the command.
 */
export type MessageRefusal =
  | "stream-id-mismatch"
  | "bad-file-name"
  | "other-file"
  | "already-settled"
  | "already-done"
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

/** The settle being decided, once nothing refused it; the outcome guards only look at that one. */
const settling = (context: MessageMachineContext, event: MessageCommand): MessageSettleCommand | null =>
  event.type === "message.settle" && context.refusal === null ? event : null;

/**
 * The life of one file in the directory queue (SPEC F1–F3, F8). A stream is born by a settle:
 * new → processing by a claim (one atomic rename), then at once processing → done when the
 * message was recorded in `processed` or stopped there as a duplicate, or processing → error
 * with a reason (never back to the inbox by itself: a poison message must not block the queue);
 * the claim and its outcome are one command and one commit. error → inbox by `files replay`; a
 * message in the inbox, or one in error whose file was moved back by hand (recorded as an
 * `observed` replay), is claimed again by the next settle.
 *
 * Guards carry the rules: a stream is named after its first claim and holds one plain file
 * name; a settle continues only the message of the file it names; only the current claim may
 * settle a message in work, and the claim that settled it is answered `already-settled` (a
 * consumer that died after its commit); a duplicate is what the `processed` insert says; only a
 * known reason quarantines. Actions only assign: each appends the event it stands for to
 * `context.emitted` and folds it into `context.message` with {@link evolveMessage}. No side
 * effects: the same definition runs in the store, in tests and in the Stately visualizer.
 */
export const messageMachine = setup({
  types: {
    context: {} as MessageMachineContext,
    events: {} as MessageCommand,
    input: {} as Message,
  },
  guards: {
    // A new stream is named after its first claim: the claim id is the stream id.
    claimNamesStream: ({ context, event }) => event.type === "message.settle" && event.claimId === context.message.id,
    // One file in one directory: not empty, not `.` or `..`, no path separator, no NUL.
    plainFileName: ({ event }) =>
      event.type === "message.settle" && event.file !== "." && event.file !== ".." && /^[^/\0]+$/.test(event.file),
    sameFile: ({ context, event }) => event.type === "message.settle" && event.file === context.message.file,
    claimMatches: ({ context, event }) => event.type === "message.settle" && event.claimId === context.message.claimId,
    rejects: ({ context, event }) => {
      const settle = settling(context, event);
      return settle?.verdict.kind === "invalid" && MESSAGE_ERROR_REASONS.includes(settle.verdict.reason);
    },
    // SPEC F3: the `processed` primary key refused the key; no lookup decided it.
    isDuplicate: ({ context, event }) => {
      const verdict = settling(context, event)?.verdict;
      return verdict?.kind === "valid" && !verdict.inserted;
    },
    isRecorded: ({ context, event }) => {
      const verdict = settling(context, event)?.verdict;
      return verdict?.kind === "valid" && verdict.inserted;
    },
    isSettling: ({ context, event }) => settling(context, event) !== null,
  },
  actions: {
    refuse: assign((_, params: { refusal: MessageRefusal }) => ({ refusal: params.refusal })),
    claim: assign(({ context, event }) => {
      if (event.type !== "message.settle") return {};
      const { claimId, owner, file, recovered, now } = event;
      return record(context, messageEvents.claimed({ claimId, owner, file, recovered, at: now }));
    }),
    replayObserved: assign(({ context, event }) => {
      if (event.type !== "message.settle") return {};
      return record(context, messageEvents.replayed({ file: event.file, by: "observed", at: event.now }));
    }),
    recordMessage: assign(({ context, event }) => {
      if (event.type !== "message.settle" || event.verdict.kind !== "valid") return {};
      const { claimId, now } = event;
      const { key, group, sequence, amount, message, file } = event.verdict;
      return record(context, messageEvents.recorded({ claimId, key, group, sequence, amount, message, file, at: now }));
    }),
    recordDuplicate: assign(({ context, event }) => {
      if (event.type !== "message.settle" || event.verdict.kind !== "valid") return {};
      const { claimId, now } = event;
      const { key, file } = event.verdict;
      return record(context, messageEvents.duplicated({ claimId, key, file, at: now }));
    }),
    reject: assign(({ context, event }) => {
      if (event.type !== "message.settle" || event.verdict.kind !== "invalid") return {};
      const { claimId, now } = event;
      const { reason, detail, file } = event.verdict;
      return record(context, messageEvents.rejected({ claimId, reason, detail, file, at: now }));
    }),
    replay: assign(({ context, event }) => {
      if (event.type !== "message.replay") return {};
      return record(context, messageEvents.replayed({ file: event.file, by: "command", at: event.now }));
    }),
  },
}).createMachine({
  id: "message",
  context: ({ input }) => ({ message: input, emitted: [], refusal: null }),
  initial: "new",
  // Fallback: a replay that no state below accepts is refused, as data.
  on: {
    "message.replay": { actions: { type: "refuse", params: { refusal: "not-in-error" } } },
  },
  states: {
    // No events yet: the stream is created by its first settle.
    new: {
      on: {
        "message.settle": [
          { guard: not("claimNamesStream"), actions: { type: "refuse", params: { refusal: "stream-id-mismatch" } } },
          { guard: not("plainFileName"), actions: { type: "refuse", params: { refusal: "bad-file-name" } } },
          { target: "processing", actions: "claim" },
        ],
      },
    },
    inbox: {
      on: {
        "message.settle": [
          { guard: not("sameFile"), actions: { type: "refuse", params: { refusal: "other-file" } } },
          { target: "processing", actions: "claim" },
        ],
      },
    },
    processing: {
      on: {
        "message.settle": [
          { guard: not("claimMatches"), actions: { type: "refuse", params: { refusal: "stale-claim" } } },
          { target: "processing" },
        ],
      },
      // The outcome of the settle that claimed it (or holds its claim), in the same decision.
      always: [
        { guard: "rejects", target: "error", actions: "reject" },
        { guard: "isDuplicate", target: "done", actions: "recordDuplicate" },
        { guard: "isRecorded", target: "done", actions: "recordMessage" },
        { guard: "isSettling", actions: { type: "refuse", params: { refusal: "unknown-reason" } } },
      ],
    },
    done: {
      on: {
        // A finished message is never claimed again: a new file with its name is a new stream.
        "message.settle": [
          { guard: "claimMatches", actions: { type: "refuse", params: { refusal: "already-settled" } } },
          { actions: { type: "refuse", params: { refusal: "already-done" } } },
        ],
      },
    },
    error: {
      on: {
        // SPEC F2: never back to the inbox by itself; `files replay` or a move by hand brings it back.
        "message.settle": [
          { guard: "claimMatches", actions: { type: "refuse", params: { refusal: "already-settled" } } },
          { guard: not("sameFile"), actions: { type: "refuse", params: { refusal: "other-file" } } },
          { target: "processing", actions: ["replayObserved", "claim"] },
        ],
        "message.replay": { target: "inbox", actions: "replay" },
      },
    },
  },
});

/** The machine's type, for variants built with `messageMachine.provide(...)`. */
export type MessageMachine = typeof messageMachine;
