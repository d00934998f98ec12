/** One CSV field (RFC 4180): quoted, with quotes doubled, only when it holds a comma, a quote or a line break. */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line of `fields`. */
export const csvLine = (...fields: readonly (string | number)[]): string => fields.map(csvField).join(",");
