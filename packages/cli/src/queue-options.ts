import { MAX_PRIORITY, MIN_PRIORITY, VerqError, checkPriority, checkQueueName } from "@verq/core";
import { MAX_CLAIM_QUEUES } from "@verq/store";

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);

/** A queue name given as `what`; a bad one is `VERQ_INVALID_ARGUMENT` (exit 2) naming the option. */
export function parseQueueName(text: string, what: string): string {
  try {
    return checkQueueName(text);
  } catch {
    throw invalid(`${what} must be a queue name: 1 to 256 printable characters`);
  }
}

/** `NAME[,NAME…]`: 1 to {@link MAX_CLAIM_QUEUES} queue names, duplicates dropped. */
export function parseQueueNames(text: string, what: string): string[] {
  const names = text.split(",").map((name) => parseQueueName(name, what));
  if (names.length > MAX_CLAIM_QUEUES) throw invalid(`${what} names at most ${MAX_CLAIM_QUEUES} queues`);
  return [...new Set(names)];
}

/** A priority given as `what`: a whole number from -1000 to 1000, sign allowed. */
export function parsePriority(text: string, what: string): number {
  const value = /^-?\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  try {
    return checkPriority(value);
  } catch {
    throw invalid(
      `${what} must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}; got ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
}
