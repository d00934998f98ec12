import fc from "fast-check";
import { guidCommands, type InquiryAnswer } from "@verq/core";
import { runChange } from "./change.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { describeTarget, pick, targets, limits, type LedgerWorld, type Target } from "./ledger-world.ts";

/** `GuidLedger.resolve` with the inquiry's answer and a min age (SPEC G5), as `guid.resolve` decides. */
export class ResolveCommand implements LedgerCommand {
  constructor(
    readonly target: Target,
    readonly answer: InquiryAnswer,
    readonly minAgeMs: number,
  ) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    const answers = fc.constantFrom<InquiryAnswer>(
      { kind: "found", code: "0000", response: '{"code":"0000"}' },
      { kind: "not-found" },
    );
    return fc
      .tuple(targets(), answers, limits())
      .map(([target, answer, minAgeMs]) => new ResolveCommand(target, answer, minAgeMs));
  }

  check(): boolean {
    return true;
  }

  run(m: LedgerWorld): Promise<void> {
    const guid = pick(m, this.target);
    const command = guidCommands.resolve({ answer: this.answer, minAgeMs: this.minAgeMs, now: m.clock.now() });
    return runChange(m, "resolve", guid, command, () => m.ledger.resolve(guid, this.answer, this.minAgeMs));
  }

  toString(): string {
    return `resolve(${describeTarget(this.target)}, ${this.answer.kind}, min age ${this.minAgeMs})`;
  }
}
