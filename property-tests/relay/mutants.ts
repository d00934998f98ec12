import {
  createGuidDecider,
  decideGuid,
  evolveGuid,
  guidEvents,
  guidMachine,
  type GuidCommand,
  type GuidDecider,
  type GuidEntry,
  type GuidEvent,
  type GuidRefusal,
} from "@verq/core";
import type { RelayService } from "@verq/adapters/relay";
import type { GuidClaimer } from "@verq/store";
import { commitGuidCreations } from "@verq/store/internal";
import type { RelayVariant } from "./relay-world.ts";

/**
 * A ledger that decides some commands outside the guid machine: where the machine refuses a
 * command that `accept` picks, it records the event the broken code would record, and the entry
 * it folds to. Everything else is decided by the real machine. (A variant of the machine itself
 * could not move the entry to another state from its `refuse` action, and the decider's fold
 * check would stop it before the property does.)
 */
function machineAccepting(
  accept: (entry: GuidEntry, command: GuidCommand, refusal: GuidRefusal) => GuidEvent | null,
): GuidDecider {
  return (entry, ...commands) => {
    const real = decideGuid(entry, ...commands);
    const [command] = commands;
    if (real.accepted || command === undefined || commands.length !== 1) return real;
    const instead = accept(entry, command, real.refusal);
    if (instead === null) return real;
    return { accepted: true, after: evolveGuid(entry, instead), events: [instead] };
  };
}

/**
 * Claim by lookup, then insert: "it is not there, so it is mine". The ledger claims only GUIDs
 * its read found no entry for; this claim trusts that read. The creations are still the ones
 * the machine decided and their commit still an insert-or-nothing, but whether each inserted is
 * ignored.
 */
const lookupThenInsert: GuidClaimer = async (store, creations) => {
  // The affected rows that should decide the owners, ignored.
  await store.transaction((trx) => commitGuidCreations(trx, store.dialect, creations));
  return creations.map(() => true);
};

/**
 * Reprocess under a new GUID, from the relay's public pieces: each FAILED entry's stored request
 * is submitted again through the relay's channel entry point as a new transfer.
 */
async function reprocessUnderNewGuid(relay: RelayService): Promise<void> {
  for (const entry of await relay.ledger.list(["FAILED"])) {
    await relay.transfer(JSON.stringify({ ...(JSON.parse(entry.request) as object), guid: `${entry.guid}-r${entry.attempts}` }));
  }
}

/**
 * Deliberately broken relays. Each breaks one rule the property claims to guard;
 * `mutants.spec.ts` asserts that the property fails on every one of them, with the tag of that
 * rule. Each comment gives the shrunk counterexample found with the CI seed (20251201).
 */
export const relayMutants: Readonly<Record<string, RelayVariant>> = {
  /**
   * G4 broken: the claim looks up the GUID and then inserts, trusting the lookup ("it is not
   * there, so it is mine"); the insert's affected-row count is ignored.
   * Caught as: two concurrent sends of g0, one with another payload; both look it up before
   * either inserts and both take themselves for the owner; the one whose payload lost is
   * answered from the other's entry (in progress) instead of E422: "[answers] g0: answered E903
   * to a payload the ledger did not claim".
   */
  "claim by lookup-then-insert": { claimer: lookupThenInsert },
  /**
   * The same claim, in a relay whose SENT step also trusts the claim (it takes an entry that is
   * already SENT). The real RECEIVED → SENT step is a second decision on the entry's current
   * version, which stops the double call above; without it:
   * Caught as: two concurrent sends of g0; both look it up before either inserts, both "own"
   * it and call the core: "[at-most-once] the core processed g0 2 times".
   */
  "claim by lookup-then-insert, SENT step trusting the claim": {
    claimer: lookupThenInsert,
    decider: machineAccepting((entry, command, refusal) =>
      command.type === "guid.send" && refusal === "not-received" && entry.state === "SENT"
        ? guidEvents.sent({ attempt: entry.attempts + 1, by: "claim", at: command.now })
        : null,
    ),
  },
  /**
   * G5 broken: resolve asks the core about an UNKNOWN entry at once.
   * Caught as: send g0 to a slow core (the relay times out: UNKNOWN) and resolve in the same
   * phase; the core has not processed g0 yet, answers 404, g0 becomes FAILED; the channel's
   * resend in the next phase sends it again, and the core processes both calls: "[at-most-once]
   * the core processed g0 2 times" (or, without the resend, "[ledger] g0 is FAILED (certainly
   * not sent) but the core processed it 1 times").
   */
  "resolve ignores the min age": {
    decider: createGuidDecider(guidMachine.provide({ guards: { olderThanMinAge: () => true } })),
  },
  /**
   * G6 broken: reprocess takes UNKNOWN entries too ("everything that failed").
   * Caught as: send g0; the relay times out before the core's answer arrives (UNKNOWN, but
   * processed); reprocess sends it again: "[at-most-once] the core processed g0 2 times".
   */
  "reprocess takes UNKNOWN": {
    decider: machineAccepting((entry, command, refusal) =>
      command.type === "guid.reprocess" && refusal === "not-failed" && entry.state === "UNKNOWN"
        ? guidEvents.sent({ attempt: entry.attempts + 1, by: "reprocess", at: command.now })
        : null,
    ),
  },
  /**
   * G6 broken: reprocess gives the FAILED transfer a new GUID.
   * Caught as: g0's request is lost in the core (UNKNOWN); resolve finds no record (FAILED);
   * reprocess submits it as g0-r1: "[same-guid] the core processed g0-r1, a GUID the channel
   * never sent" (with a channel resend of g0 as well, "[at-most-once] the transfer of 100 was
   * processed 2 times").
   */
  "reprocess under a new GUID": { reprocess: reprocessUnderNewGuid },
  /**
   * G7 broken: purge ignores the retention (the machine's `olderThanRetention` guard always
   * holds), so a DONE entry is purged however young.
   * Caught as: send g0 (answered: DONE); in the next phase, at the same time, purge and a
   * resend of g0 within the channel's window: the young DONE entry is purged and the resend is
   * claimed and processed as new: "[purge] g0 was purged 0 ms after its last change, within the
   * retention of 6000 ms" (and the core processed g0 twice).
   */
  "purge ignores retention": {
    decider: createGuidDecider(guidMachine.provide({ guards: { olderThanRetention: () => true } })),
  },
  /**
   * G7 broken: purge deletes UNKNOWN entries older than the retention too.
   * Caught as: send g0, an invalid core answer (UNKNOWN); the clock moves past the retention;
   * purge: "[purge] g0 was purged while UNKNOWN".
   */
  "purge deletes UNKNOWN": {
    decider: machineAccepting((entry, command, refusal) =>
      command.type === "guid.purge" &&
      refusal === "not-done" &&
      entry.state === "UNKNOWN" &&
      command.now - entry.updatedAt >= command.retentionMs
        ? guidEvents.purged({ retentionMs: command.retentionMs, resendWindowMs: command.resendWindowMs, at: command.now })
        : null,
    ),
  },
};
