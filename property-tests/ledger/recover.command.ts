import type fc from "fast-check";
import { decideGuid, guidCommands } from "@verq/core";
import { checkDecided, checkNothingElse } from "./check-decided.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { json, ledgerFail, limits, oldestFirst, type LedgerWorld } from "./ledger-world.ts";

/**
 * `GuidLedger.recover` (the recovery sweep): for every entry, the ledger must write what
 * `decideGuid` decides for `guid.recover` from it, and report the entries it failed and lost, in
 * scan order, and how many the machine found too young.
 */
export class RecoverCommand implements LedgerCommand {
  constructor(readonly olderThanMs: number) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return limits().map((ms) => new RecoverCommand(ms));
  }

  check(): boolean {
    return true;
  }

  async run(m: LedgerWorld): Promise<void> {
    const command = guidCommands.recover({ olderThanMs: this.olderThanMs, now: m.clock.now() });
    const decided = oldestFirst(m).map((entry) => ({ entry, decision: decideGuid(entry, command) }));
    const result = await m.ledger.recover(this.olderThanMs);
    for (const { entry, decision } of decided) await checkDecided(m, "recover", entry.guid, entry, decision);
    await checkNothingElse(m, "recover");
    const moved = (state: string) =>
      decided.filter((d) => d.decision.accepted && d.decision.after.state === state).map((d) => d.entry.guid);
    const young = decided.filter((d) => !d.decision.accepted && d.decision.refusal === "too-young").length;
    const want = { failed: moved("FAILED"), unknown: moved("UNKNOWN"), young };
    if (json(result) !== json(want)) ledgerFail("recover result", `recover answered ${json(result)}, expected ${json(want)}`);
  }

  toString(): string {
    return `recover(${this.olderThanMs})`;
  }
}
