import { coerceError } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { StoredEvent } from "../sql/events/storedEvent.ts";
import type { Report } from "./finding.ts";

/**
 * How the check audits the streams of one type. `begin`/`step` fold one stream at a time, in
 * version order, with the same evolve function the store projects with, and report what the
 * log itself breaks (tokens, finishes); `settle` compares the projections of a batch of folded
 * streams with their rows; `orphans` reports projection rows that no stream of the type explains.
 * The state of one stream is all a check keeps in memory between pages.
 */
export interface StreamTypeCheck<State> {
  readonly streamType: string;
  begin(streamId: string): State;
  step(state: State, event: StoredEvent, report: Report): void;
  /**
   * Optional: called after each page with the state of every stream the page reached (the last
   * one maybe unfinished), to check what `step` gathered and forget it, so that no state grows
   * with the length of a stream.
   */
  drain?(db: Kysely<VerqDatabase>, state: State, report: Report): Promise<void>;
  settle(db: Kysely<VerqDatabase>, streams: readonly State[], report: Report): Promise<void>;
  orphans(db: Kysely<VerqDatabase>, batchSize: number, report: Report): Promise<void>;
}

/**
 * `field=value (fold: value)` for each of `fields` where `row` and `fold` differ; the fields in
 * `hidden` (payloads, requests, answers) are named without their values.
 */
export function describeDifferences(
  row: object,
  fold: object,
  fields: readonly string[],
  hidden: readonly string[] = [],
): string[] {
  const differences: string[] = [];
  for (const field of fields) {
    const a = (row as Record<string, unknown>)[field];
    const b = (fold as Record<string, unknown>)[field];
    if (a === b) continue;
    differences.push(hidden.includes(field) ? `${field} differs` : `${field}=${show(a)} (fold: ${show(b)})`);
  }
  return differences;
}

const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value));

/** A number column as the driver returns it (PostgreSQL's bigint and numeric come back as text). */
export const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** Pages through the projection rows that `select` finds after a key, `batchSize` at a time, reporting each. */
export async function eachPage<Row>(
  batchSize: number,
  select: (after: string | null, limit: number) => Promise<Row[]>,
  keyOf: (row: Row) => string,
  visit: (row: Row) => void,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const rows = await select(after, batchSize);
    for (const row of rows) visit(row);
    const last = rows.at(-1);
    if (last === undefined || rows.length < batchSize) return;
    after = keyOf(last);
  }
}

/**
 * `stored` as an event of its stream type, when its type is one of `types`; otherwise reports
 * `EVENT_INVALID` for stream `name` and returns undefined (the caller then stops folding it).
 */
export function typedEvent<E extends { readonly type: string }>(
  stored: StoredEvent,
  types: readonly string[],
  name: string,
  report: Report,
): E | undefined {
  if (types.includes(stored.type)) return { type: stored.type, data: stored.data } as unknown as E;
  report("EVENT_INVALID", name, `v${stored.version} has the unknown type ${JSON.stringify(stored.type)}`);
  return undefined;
}

/**
 * `evolve(state, event)`, the fold the store projects with; when it throws (an event its state
 * cannot take), reports `EVENT_INVALID` for stream `name` with the reason and returns undefined.
 */
export function evolveOrReport<S, E>(
  evolve: (state: S, event: E) => S,
  state: S,
  event: E,
  stored: StoredEvent,
  name: string,
  report: Report,
): S | undefined {
  try {
    return evolve(state, event);
  } catch (error) {
    report("EVENT_INVALID", name, `v${stored.version} ${stored.type}: ${coerceError(error).message}`);
    return undefined;
  }
}
