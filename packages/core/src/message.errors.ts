import { VerqError, type VerqErrorCode } from "./errors.ts";

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
    // The codes extend VerqErrorCode; they live here so that the file queue's files stay together.
    super(code as unknown as VerqErrorCode, message, options);
  }
}
