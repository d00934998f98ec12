import fc from "fast-check";
import { ManualClock, type Message, type MessageDecider } from "@verq/core";
import { FileLedger, type VerqStore } from "@verq/store";
import type { TestDatabase } from "@verq/testing";

/** Where the manual clock starts. */
export const FILES_START_MS = 1_700_000_000_000;

/**
 * The file names the commands draw from: three plain names, so that files meet again under one
 * name (replays, moves back, a new file after a finished one), and now and then one that is no
 * file's name.
 */
export const fileNames = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("a.json", "b.json", "c.json") },
    { weight: 1, arbitrary: fc.constantFrom("in/a.json", "..") },
  );

/** The idempotency keys the valid verdicts draw from: few, so that duplicates are common. */
export const KEYS = ["K1", "K2", "K3"] as const;

/**
 * The system under test and its model. `ledger` is a real file ledger over a store on a fresh
 * database (SQLite or PostgreSQL), on a manual clock, deciding with `decider` (a mutant) or the
 * real machine. The model holds what the real `decideMessage` decided, command after command:
 * each stream's message, the keys recorded in `processed`, and every claim issued (with its
 * file), so that a claim can be settled again as after a crash.
 */
export interface FilesWorld {
  readonly store: VerqStore;
  readonly ledger: FileLedger;
  readonly clock: ManualClock;
  readonly messages: Map<string, Message>;
  readonly keys: Set<string>;
  readonly claims: { readonly claimId: string; readonly file: string }[];
}

/** Opens the world's store on `database`, fresh for the run; the caller closes the store and disposes the database. */
export async function createFilesWorld(database: TestDatabase, decider?: MessageDecider): Promise<FilesWorld> {
  const store = await database.open();
  const clock = new ManualClock(FILES_START_MS);
  const ledger = new FileLedger(store, { clock, decider });
  return { store, ledger, clock, messages: new Map(), keys: new Set(), claims: [] };
}

/**
 * The stream a file under `file` continues, as the model sees it: the latest message last put
 * under that name in `inbox`, or in `error` unless `errorCopyExists` (SPEC F8).
 */
export function openMessage(world: FilesWorld, file: string, errorCopyExists: boolean): Message | null {
  let found: Message | null = null;
  for (const m of world.messages.values()) {
    const open = m.state === "inbox" || (m.state === "error" && !errorCopyExists);
    if (m.file !== file || !open) continue;
    if (found === null || m.updatedAt > found.updatedAt || (m.updatedAt === found.updatedAt && m.id > found.id)) found = m;
  }
  return found;
}

/** The message whose current or last claim is `claimId`. */
export function messageByClaim(world: FilesWorld, claimId: string): Message | null {
  for (const m of world.messages.values()) if (m.claimId === claimId) return m;
  return null;
}

/** Fails a run with the `[tag]` of the property broken, which the mutants' spec matches. */
export function filesFail(tag: string, message: string): never {
  throw new Error(`[${tag}] ${message}`);
}
