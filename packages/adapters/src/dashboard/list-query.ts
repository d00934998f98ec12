import { VerqError } from "@verq/core";

/** The filters of a listing as its query string gave them: text only, an empty field as absent. */
export type ListQuery<K extends string> = Readonly<Partial<Record<K, string>>>;

/**
 * The fields `keys` of a request's query string. A field the listing does not take, a repeated
 * field or one longer than `maxLength` is `VERQ_INVALID_ARGUMENT`, so that a mistyped filter is
 * a 400 page rather than a listing that silently shows everything.
 */
export function listQuery<K extends string>(query: unknown, keys: readonly K[], maxLength = 4_096): ListQuery<K> {
  const found: Partial<Record<K, string>> = {};
  const fields = typeof query === "object" && query !== null ? Object.entries(query as Record<string, unknown>) : [];
  for (const [key, value] of fields) {
    if (!(keys as readonly string[]).includes(key)) {
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        `this page takes no filter ${JSON.stringify(key.slice(0, 64))}; it takes ${keys.join(", ")}`,
      );
    }
    if (typeof value !== "string") throw new VerqError("VERQ_INVALID_ARGUMENT", `the filter ${key} is given more than once`);
    if (value.length > maxLength)
      throw new VerqError("VERQ_INVALID_ARGUMENT", `the filter ${key} is longer than ${maxLength} characters`);
    if (value !== "") found[key as K] = value;
  }
  return found;
}
