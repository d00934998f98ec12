/**
 * The redrive note rule (SPEC J6). An operator's note is a ticket identifier, nothing else, so
 * that error text and personal data never reach the audit trail:
 *
 * - 1 to 64 characters, all printable ASCII;
 * - the first character a letter or digit;
 * - the rest letters, digits, or one of `.` `_` `-` `:` `#` `/`;
 * - no spaces, no line breaks, no other punctuation.
 *
 * Accepted: `OPS-1234`, `INC#42`, `JIRA:PAY-77`, `gh/verq/issues/12`. Refused: `""`,
 * `fixed it`, `Müller-1`, `OPS-1\nDROP`, 65 characters.
 */
export const REDRIVE_NOTE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:#/-]{0,63}$/;

/** The longest note accepted, in characters. */
export const REDRIVE_NOTE_MAX_LENGTH = 64;

/** True when `note` is a string that satisfies {@link REDRIVE_NOTE_PATTERN}. */
export function isValidRedriveNote(note: unknown): note is string {
  return typeof note === "string" && REDRIVE_NOTE_PATTERN.test(note);
}
