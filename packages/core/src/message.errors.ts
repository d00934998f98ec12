import { VerqError } from "./errors.ts";
import type { MessageRefusal } from "./message.machine.ts";

/**
 * Stable codes of the file queue's errors:
 * - `VERQ_FILE_NOT_FOUND`: the named file is not where the command looks for it (CLI exit 4);
 * - `VERQ_FILE_EXISTS`: the destination already holds another file of that name; nothing was
 *   moved (CLI exit 3);
 * - `VERQ_MESSAGE_REFUSED`: the message machine refused a move (a stale claim, a replay of a
 *   message that is not in error); nothing was recorded.
 */
export type MessageErrorCode = "VERQ_FILE_NOT_FOUND" | "VERQ_FILE_EXISTS" | "VERQ_MESSAGE_REFUSED";

/** An error of the file queue; a {@link VerqError} with one of the {@link MessageErrorCode}s. */
export class MessageError extends VerqError {
  constructor(code: MessageErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * The coded error of a refused settle or replay of message `id`, or null when the refusal is an
 * answer: `already-settled` (this claim was recorded before its consumer died; the message as
 * recorded answers it). Every other refusal is `VERQ_MESSAGE_REFUSED`, naming the command.
 */
export function messageRefusalError(id: string, command: string, refusal: MessageRefusal): MessageError | null {
  if (refusal === "already-settled") return null;
  return new MessageError("VERQ_MESSAGE_REFUSED", `message ${id}: ${command} refused (${refusal}); nothing was recorded`);
}
