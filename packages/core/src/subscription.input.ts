import { VerqError } from "./errors.ts";

/** A subscriber's name: what its durable checkpoint is kept under. ASCII letters, digits and `. _ - : /`, 1 to 128. */
export const SUBSCRIPTION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
/** A stream type a subscription may filter on: lower-case letters and `-` (`job`, `guid`, `message`, `ledger-audit`). */
const STREAM_TYPE_PATTERN = /^[a-z][a-z-]{0,31}$/;
/** The most events one batch of a subscription may carry. */
export const MAX_SUBSCRIPTION_BATCH = 10_000;
/** The longest pause between two polls of a live subscription: one hour. */
export const MAX_SUBSCRIPTION_POLL_MS = 3_600_000;

/** What a subscription reads, as its options give it (see {@link checkSubscription}). */
export interface SubscriptionInput {
  readonly name?: string | undefined;
  readonly from?: number | undefined;
  readonly types?: readonly string[] | undefined;
  readonly batchSize?: number | undefined;
  readonly pollMs?: number | undefined;
}

/** {@link SubscriptionInput} with its defaults filled in. */
export interface CheckedSubscription {
  readonly name: string | undefined;
  /** The first position a subscriber with no checkpoint yet may be given. */
  readonly from: number;
  /** The stream types delivered, or undefined for every one. */
  readonly types: readonly string[] | undefined;
  readonly batchSize: number;
  readonly pollMs: number;
}

const invalid = (message: string): never => {
  throw new VerqError("VERQ_INVALID_ARGUMENT", message);
};

const wholeIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;

/**
 * Checks a subscription's options before anything is read, and fills in the defaults (`from` 1,
 * every stream type, batches of 100, a poll every 250 ms). Anything malformed is
 * `VERQ_INVALID_ARGUMENT`, naming the option and never its value. A pure function.
 */
export function checkSubscription(input: SubscriptionInput): CheckedSubscription {
  const { name, from = 1, types, batchSize = 100, pollMs = 250 } = input;
  if (name !== undefined && (typeof name !== "string" || !SUBSCRIPTION_NAME_PATTERN.test(name)))
    invalid("a subscription name is 1 to 128 ASCII letters, digits or . _ - : /, starting with a letter or digit");
  if (!wholeIn(from, 0, Number.MAX_SAFE_INTEGER)) invalid("from must be a whole number of at least 0 (an event position)");
  if (types !== undefined) {
    if (!Array.isArray(types) || types.length === 0) invalid("types must name at least one stream type, or be left out");
    for (const type of types)
      if (typeof type !== "string" || !STREAM_TYPE_PATTERN.test(type))
        invalid("a stream type is lower-case letters and -, such as job, guid or message");
  }
  if (!wholeIn(batchSize, 1, MAX_SUBSCRIPTION_BATCH))
    invalid(`batchSize must be a whole number from 1 to ${MAX_SUBSCRIPTION_BATCH}`);
  if (!wholeIn(pollMs, 1, MAX_SUBSCRIPTION_POLL_MS))
    invalid(`pollMs must be a whole number from 1 to ${MAX_SUBSCRIPTION_POLL_MS}`);
  return { name, from, types: types === undefined ? undefined : [...new Set(types)], batchSize, pollMs };
}
