/** The longest GUID accepted, in characters. */
export const GUID_MAX_LENGTH = 128;

/**
 * A GUID as the channel sends it: 1 to 128 ASCII characters, letters, digits and `.` `_` `:`
 * `-`, starting with a letter or digit. UUIDs fit; spaces, slashes, control characters and
 * non-ASCII letters do not, so a GUID is always safe in a URL path, a log line and a file name.
 */
export const GUID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** True when `value` is a string that satisfies {@link GUID_PATTERN}. */
export function isValidGuid(value: unknown): value is string {
  return typeof value === "string" && GUID_PATTERN.test(value);
}
