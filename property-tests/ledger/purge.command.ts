import fc from "fast-check";
import { GUID_STATES, decideGuid, guidCommands, newGuidEntry, type GuidState } from "@verq/core";
import { checkDecided, checkNothingElse } from "./check-decided.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { answerOf, json, ledgerFail, limits, oldestFirst, type LedgerWorld } from "./ledger-world.ts";

/**
 * `GuidLedger.purge` (SPEC G7) with a retention and a resend window, the retention sometimes
 * not longer than the window: for every entry, the ledger must write what `decideGuid` decides
 * for `guid.purge` from it (a decided purge deletes the stream and its row), audit the GUIDs it
 * purged in scan order, and report them, their events and the entries kept although older than
 * the retention (`not-done`), by state; and when the machine refuses the retention as too short,
 * throw `VERQ_PURGE_RETENTION_TOO_SHORT` having changed nothing.
 */
export class PurgeCommand implements LedgerCommand {
  constructor(
    readonly retentionMs: number,
    readonly resendWindowMs: number,
  ) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return fc
      .tuple(limits(), fc.constantFrom(0, 0, 500, 5_000))
      .map(([retentionMs, resendWindowMs]) => new PurgeCommand(retentionMs, resendWindowMs));
  }

  check(): boolean {
    return true;
  }

  async run(m: LedgerWorld): Promise<void> {
    const now = m.clock.now();
    const command = guidCommands.purge({ retentionMs: this.retentionMs, resendWindowMs: this.resendWindowMs, now });
    const decided = oldestFirst(m).map((entry) => ({ entry, decision: decideGuid(entry, command) }));
    const audits = (await m.ledger.purges()).length;
    const result = await m.ledger
      .purge({ retentionMs: this.retentionMs, resendWindowMs: this.resendWindowMs })
      .catch((error: unknown) => error);
    for (const { entry, decision } of decided) await checkDecided(m, "purge", entry.guid, entry, decision);
    await checkNothingElse(m, "purge");

    const purged = decided.filter((d) => d.decision.accepted).map((d) => d.entry);
    const kept = Object.fromEntries(GUID_STATES.map((s) => [s, 0])) as Record<GuidState, number>;
    for (const d of decided) if (!d.decision.accepted && d.decision.refusal === "not-done") kept[d.entry.state]++;
    // The command is judged on the blank entry first: too short a retention is refused on an empty ledger too.
    const probe = decideGuid(newGuidEntry("purge-probe"), command);
    const tooShort =
      (!probe.accepted && probe.refusal === "retention-too-short") ||
      decided.some((d) => !d.decision.accepted && d.decision.refusal === "retention-too-short");
    const want = tooShort
      ? { error: "VERQ_PURGE_RETENTION_TOO_SHORT" }
      : { purged: purged.length, events: purged.reduce((sum, e) => sum + e.version, 0), kept };
    if (json(answerOf(result)) !== json(want))
      ledgerFail("purge result", `purge answered ${json(answerOf(result))}, expected ${json(want)}`);

    const audit = (await m.ledger.purges()).slice(audits).map((e) => e.data);
    const auditWant =
      purged.length === 0
        ? []
        : [{ guids: purged.map((e) => e.guid), retentionMs: this.retentionMs, resendWindowMs: this.resendWindowMs, at: now }];
    if (json(audit) !== json(auditWant)) ledgerFail("purge audit", `purge audited ${json(audit)}, expected ${json(auditWant)}`);
  }

  toString(): string {
    return `purge(retention ${this.retentionMs}, resend window ${this.resendWindowMs})`;
  }
}
