import { createMessageDecider, messageMachine, type MessageDecider } from "@verq/core";

/**
 * Deliberately broken message machines, each breaking one rule that moved from the file ledger
 * into the machine; `mutants.spec.ts` asserts that the files property fails on every one, and by
 * which check.
 */
export const messageMutants: Readonly<Record<string, MessageDecider>> = {
  /**
   * F3 broken: the claim that settled a message is not recognised (the service's old
   * `already` check, now the `claimMatches` guard of done and error). A consumer that died after
   * its commit would settle its message again. Caught (CI seed) as: settle(new claim, a.json,
   * invalid parse, placed as a.json~1) → settle(claim #0 again): the ledger refuses the
   * message as another file where the machine answers already-settled: "[settle result] settle
   * answered VERQ_MESSAGE_REFUSED, expected already". Under the same name from `error` it writes
   * replayed, claimed, rejected where the machine decides nothing: "[settle events]".
   */
  "a settled claim settles again": createMessageDecider(messageMachine.provide({ guards: { claimMatches: () => false } })),
  /**
   * Creation broken: a new stream takes any name (the `plainFileName` guard of `new`). Caught
   * as: settle(new claim, "in/a.json" or "..", …): the ledger creates a stream the machine
   * refuses (bad-file-name): "[settle events]".
   */
  "a new stream takes any file name": createMessageDecider(messageMachine.provide({ guards: { plainFileName: () => true } })),
};
