import fc from "fast-check";
import { decideGuid, guidCommands, newGuidEntry } from "@verq/core";
import { checkDecided, checkNothingElse } from "./check-decided.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { answerOf, guids, json, ledgerFail, requestFor, type LedgerWorld } from "./ledger-world.ts";

/**
 * `GuidLedger.receive` of a channel request: a GUID first seen (the machine decides its creation
 * from the blank: `guid.receive`), a repeat of a known one (`guid.repeat` against its entry, with
 * the same or another payload), or something that is not a GUID. The ledger must write what
 * `decideGuid` decides and answer `claimed`, `resend` or `repeat` with the refusal accordingly,
 * `VERQ_INVALID_GUID` for a GUID the machine refuses as invalid.
 */
export class ReceiveCommand implements LedgerCommand {
  constructor(
    readonly guid: string,
    readonly otherPayload: boolean,
    readonly maxAttempts: number,
  ) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return fc
      .tuple(
        guids(),
        fc.nat(4).map((n) => n === 0),
        fc.integer({ min: 1, max: 3 }),
      )
      .map(([guid, other, max]) => new ReceiveCommand(guid, other, max));
  }

  check(): boolean {
    return true;
  }

  async run(m: LedgerWorld): Promise<void> {
    const now = m.clock.now();
    const { request, fingerprint } = requestFor(this.guid, this.otherPayload);
    const known = m.entries.get(this.guid);
    const before = known ?? newGuidEntry(this.guid);
    const expected =
      known === undefined
        ? decideGuid(before, guidCommands.receive({ guid: this.guid, request, fingerprint, now }))
        : decideGuid(known, guidCommands.repeat({ fingerprint, maxAttempts: this.maxAttempts, now }));
    const result = await m.ledger
      .receive({ guid: this.guid, request, fingerprint, maxAttempts: this.maxAttempts })
      .catch((error: unknown) => error);
    await checkDecided(m, "receive", this.guid, before, expected);
    await checkNothingElse(m, "receive");
    let want: unknown;
    if (expected.accepted) want = { kind: known === undefined ? "claimed" : "resend", entry: expected.after };
    else if (known === undefined) want = { error: expected.refusal === "invalid-guid" ? "VERQ_INVALID_GUID" : "VERQ_UNEXPECTED" };
    else want = { kind: "repeat", entry: known, refusal: expected.refusal };
    if (json(answerOf(result)) !== json(want))
      ledgerFail("receive result", `receive of ${json(this.guid)} answered ${json(answerOf(result))}, expected ${json(want)}`);
  }

  toString(): string {
    return `receive(${json(this.guid)}${this.otherPayload ? ", other payload" : ""}, max ${this.maxAttempts})`;
  }
}
