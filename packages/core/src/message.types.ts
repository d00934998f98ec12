/**
 * Where a file-queue message is (SPEC F1–F3, F8): waiting in `inbox/`, claimed in
 * `processing/`, finished in `done/`, or quarantined in `error/` with a reason.
 */
export type MessageState = (typeof MESSAGE_STATES)[number];

/** Every message state, in lifecycle order. */
export const MESSAGE_STATES = ["inbox", "processing", "done", "error"] as const;

/**
 * Why a message went to `error/` (SPEC F2, F5). Format errors need a fix at the source:
 * - `parse`: not a JSON object in UTF-8 (empty file, invalid UTF-8, a syntax error, or a
 *   top-level value that is not an object, such as an array);
 * - `too-large`: over the consumer's size limit; never read.
 *
 * Business errors can be completed and replayed:
 * - `missing-field`: a required field of the profile is absent or `null`;
 * - `invalid-field`: a field is present with the wrong type or out of range (an amount that
 *   is a string, a sequence below the profile's start).
 *
 * Processing errors: `handler`: the user's handler threw; nothing of it was committed.
 */
export type MessageErrorReason = "parse" | "too-large" | "missing-field" | "invalid-field" | "handler";

/** Every error reason. */
export const MESSAGE_ERROR_REASONS: readonly MessageErrorReason[] = [
  "parse",
  "too-large",
  "missing-field",
  "invalid-field",
  "handler",
];

/** The class of an error reason: what it takes to get the message through (SPEC F5). */
export type MessageErrorKind = "format" | "business" | "processing";

/**
 * The class of `reason` (SPEC F5): `format` (`parse`, `too-large`) needs a fix at the source;
 * `business` (`missing-field`, `invalid-field`) can be completed and replayed; `processing`
 * (`handler`) may pass on a replay once the handler's cause is fixed. Total over
 * {@link MessageErrorReason}.
 */
export function messageErrorKind(reason: MessageErrorReason): MessageErrorKind {
  switch (reason) {
    case "parse":
    case "too-large":
      return "format";
    case "missing-field":
    case "invalid-field":
      return "business";
    case "handler":
      return "processing";
  }
}

/**
 * Where the file of `message` belongs once its message is settled: `done/` for a message done
 * (recorded, or stopped as a duplicate), `error/` for one in error. Null while it is not settled
 * (no events yet, or claimed): a file found in `processing/` on recovery whose message is not
 * settled is processed again; one whose message is settled only goes where the record says
 * (SPEC F8: nothing lost, nothing applied twice).
 */
export function settledFolder(message: Pick<Message, "state">): "done" | "error" | null {
  return message.state === "done" || message.state === "error" ? message.state : null;
}

/** How a message finished in `done/`: recorded in `processed`, or stopped there as a duplicate. */
export type MessageOutcome = "recorded" | "duplicate";

/**
 * A message as the projection holds it: the fold of its `message.*` events, from
 * {@link newMessage}. A stream is one file's life, from its first claim to `done`, including
 * every trip error → inbox by replay. A new file that reuses a finished file's name starts a
 * new stream.
 */
export interface Message {
  /** The stream id: the claim id of the stream's first claim. */
  readonly id: string;
  /** The file's name where it was last put (its inbox name while claimed, its done/error name after). */
  readonly file: string;
  /** Where the message is; `new` only for a stream with no events yet, which is never stored. */
  readonly state: "new" | MessageState;
  /** The current or last claim; a claim id is unique per claim, and fences late writers. */
  readonly claimId: string | null;
  /** Who holds or held the claim (`pid@host`). */
  readonly owner: string | null;
  /** How many claims were recorded for it: one per trip through `processing/`. */
  readonly claims: number;
  /** Why it is in `error/`; set exactly when `state` is `error`. */
  readonly reason: MessageErrorReason | null;
  /** A short description of the error, with field names and byte counts, never field values. */
  readonly detail: string | null;
  /** The idempotency key, once the message was valid. */
  readonly key: string | null;
  /** How the message finished in `done/`; `null` until then. */
  readonly outcome: MessageOutcome | null;
  /** How many times it came back from `error/` to the inbox. */
  readonly replays: number;
  /** Time of the first event (0 while there is none). */
  readonly createdAt: number;
  /** Time of the last event applied. */
  readonly updatedAt: number;
  /** Version of the stream: the number of events applied. */
  readonly version: number;
}

/**
 * The stream `id` before its first event (state `new`, version 0, no file): what the message
 * machine decides a stream's creation from, so that its first event is a guarded transition
 * like every other. Never stored.
 */
export function newMessage(id: string): Message {
  return {
    id,
    file: "",
    state: "new",
    claimId: null,
    owner: null,
    claims: 0,
    reason: null,
    detail: null,
    key: null,
    outcome: null,
    replays: 0,
    createdAt: 0,
    updatedAt: 0,
    version: 0,
  };
}
