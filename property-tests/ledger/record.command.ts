import fc from "fast-check";
import { guidCommands, type CoreOutcome } from "@verq/core";
import { runChange } from "./change.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { describeTarget, pick, targets, type LedgerWorld, type Target } from "./ledger-world.ts";

const outcomes: readonly CoreOutcome[] = [
  { kind: "answered", code: "0000", response: '{"code":"0000"}' },
  { kind: "answered", code: "B201", response: '{"code":"B201"}' },
  { kind: "no-answer" },
  { kind: "invalid-answer" },
  { kind: "not-sent" },
];

/** `GuidLedger.record` of a core call's outcome, for the entry's current attempt or an earlier one, as `guid.record` decides. */
export class RecordCommand implements LedgerCommand {
  constructor(
    readonly target: Target,
    readonly stale: boolean,
    readonly outcome: CoreOutcome,
  ) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return fc
      .tuple(
        targets(),
        fc.nat(4).map((n) => n === 0),
        fc.constantFrom(...outcomes),
      )
      .map(([target, stale, outcome]) => new RecordCommand(target, stale, outcome));
  }

  check(): boolean {
    return true;
  }

  run(m: LedgerWorld): Promise<void> {
    const guid = pick(m, this.target);
    const attempt = (m.entries.get(guid)?.attempts ?? 1) - (this.stale ? 1 : 0);
    const command = guidCommands.record({ attempt, outcome: this.outcome, now: m.clock.now() });
    return runChange(m, "record", guid, command, () => m.ledger.record(guid, attempt, this.outcome));
  }

  toString(): string {
    return `record(${describeTarget(this.target)}, ${this.outcome.kind}${this.stale ? ", earlier attempt" : ""})`;
  }
}
