import type { MessageEvent } from "./message.events.ts";
import { newMessage, type Message } from "./message.types.ts";

/**
 * Folds one event into a message. Pure. A stream starts from {@link newMessage} (version 0),
 * so the projection is, by definition, `events.reduce(evolveMessage, newMessage(id))`. Each
 * event adds 1 to `version` and sets `updatedAt` to its `at` (the first one `createdAt` too);
 * it does not check that the move is allowed (that is the machine's job, before the event
 * exists).
 */
export function evolveMessage(message: Message, event: MessageEvent): Message {
  const base = {
    ...message,
    createdAt: message.version === 0 ? event.data.at : message.createdAt,
    updatedAt: event.data.at,
    version: message.version + 1,
  };
  switch (event.type) {
    case "message.claimed":
      return {
        ...base,
        state: "processing",
        file: event.data.file,
        claimId: event.data.claimId,
        owner: event.data.owner,
        claims: message.claims + 1,
      };
    case "message.recorded":
      return { ...base, state: "done", file: event.data.file, key: event.data.key, outcome: "recorded" };
    case "message.duplicated":
      return { ...base, state: "done", file: event.data.file, key: event.data.key, outcome: "duplicate" };
    case "message.rejected":
      return { ...base, state: "error", file: event.data.file, reason: event.data.reason, detail: event.data.detail };
    case "message.replayed":
      return {
        ...base,
        state: "inbox",
        file: event.data.file,
        owner: null,
        reason: null,
        detail: null,
        replays: message.replays + 1,
      };
  }
}

/** The fold of a whole stream, in version order, from {@link newMessage} with `id`; `null` for an empty stream. */
export function foldMessage(id: string, events: readonly MessageEvent[]): Message | null {
  return events.length === 0 ? null : events.reduce(evolveMessage, newMessage(id));
}
