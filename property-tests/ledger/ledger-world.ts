import fc from "fast-check";
import { GUID_STREAM, ManualClock, fingerprintRequest, type GuidDecider, type LedgerEntry } from "@verq/core";
import { GuidLedger, readAllEvents, type StoredEvent, type VerqStore } from "@verq/store";
import type { TestDatabase } from "@verq/testing";

/** Where the manual clock starts. */
export const LEDGER_START_MS = 1_767_258_000_000;

/** The GUIDs the commands draw from: few, so that repeats are the rule; now and then one that is not a GUID. */
export const guids = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("g0", "g1", "g2") },
    { weight: 1, arbitrary: fc.constantFrom("g 1", "-g", "") },
  );

/**
 * Which GUID a command on an entry names: mostly one the ledger holds (an index into them), now
 * and then any from {@link guids}.
 */
export type Target = { readonly known: number } | { readonly guid: string };

export const targets = (): fc.Arbitrary<Target> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((known) => ({ known })) },
    { weight: 1, arbitrary: guids().map((guid) => ({ guid })) },
  );

/** The GUID `target` names in `world` now (any GUID while the ledger holds none). */
export function pick(world: LedgerWorld, target: Target): string {
  if ("guid" in target) return target.guid;
  const known = [...world.entries.keys()].sort();
  return known[target.known % Math.max(known.length, 1)] ?? "g0";
}

export const describeTarget = (target: Target): string =>
  "guid" in target ? JSON.stringify(target.guid) : `entry #${target.known}`;

/** The age limits the commands draw from (min age, recovery limit, retention, resend window), around the clock's moves. */
export const limits = (): fc.Arbitrary<number> => fc.constantFrom(0, 1, 500, 1_000, 5_000, 6_000);

/**
 * The system under test and its model. `ledger` is a real GUID ledger over a store on a fresh
 * database (SQLite or PostgreSQL), on a manual clock, deciding with `decider` (a mutant) or the
 * real machine. The model holds each GUID's entry as the real `decideGuid` decided it, command
 * after command.
 */
export interface LedgerWorld {
  readonly store: VerqStore;
  readonly ledger: GuidLedger;
  readonly clock: ManualClock;
  readonly entries: Map<string, LedgerEntry>;
}

/** Opens the world's store on `database`, fresh for the run; the caller closes the store and disposes the database. */
export async function createLedgerWorld(database: TestDatabase, decider?: GuidDecider): Promise<LedgerWorld> {
  const store = await database.open();
  const clock = new ManualClock(LEDGER_START_MS);
  const ledger = new GuidLedger(store, { clock, decider });
  return { store, ledger, clock, entries: new Map() };
}

/** The channel's text for `guid`: its own amount, or another payload (another fingerprint). */
export function requestFor(guid: string, otherPayload: boolean): { request: string; fingerprint: string } {
  const request = JSON.stringify({ guid, amount: otherPayload ? 2 : 1 });
  return { request, fingerprint: fingerprintRequest(JSON.parse(request)) };
}

/** The stored events of `guid`'s stream, oldest first (none for an unknown or purged GUID). */
export async function streamOf(world: LedgerWorld, guid: string): Promise<StoredEvent[]> {
  return (await readAllEvents(world.store.db, GUID_STREAM)).filter((e) => e.streamId === guid);
}

/** The model's entries in the order the ledger scans them: oldest change first, ties by GUID. */
export function oldestFirst(world: LedgerWorld): LedgerEntry[] {
  return [...world.entries.values()].sort(
    (a, b) => a.updatedAt - b.updatedAt || (a.guid < b.guid ? -1 : a.guid > b.guid ? 1 : 0),
  );
}

/** Fails a run with the `[tag]` of the property broken, which the mutants' spec matches. */
export function ledgerFail(tag: string, message: string): never {
  throw new Error(`[${tag}] ${message}`);
}

export const json = (value: unknown): string => JSON.stringify(value);

/** A thrown verq error as `{ error: code }`, anything else as itself, for comparing answers. */
export const answerOf = (result: unknown): unknown =>
  result instanceof Error ? { error: (result as { code?: string }).code ?? result.message } : result;
