import fc from "fast-check";
import { guidCommands } from "@verq/core";
import { runChange } from "./change.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { describeTarget, pick, targets, type LedgerWorld, type Target } from "./ledger-world.ts";

/** `GuidLedger.reprocess` below an attempt cap (SPEC G6), as `guid.reprocess` decides. */
export class ReprocessCommand implements LedgerCommand {
  constructor(
    readonly target: Target,
    readonly maxAttempts: number,
  ) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return fc.tuple(targets(), fc.integer({ min: 1, max: 3 })).map(([target, max]) => new ReprocessCommand(target, max));
  }

  check(): boolean {
    return true;
  }

  run(m: LedgerWorld): Promise<void> {
    const guid = pick(m, this.target);
    const command = guidCommands.reprocess({ maxAttempts: this.maxAttempts, now: m.clock.now() });
    return runChange(m, "reprocess", guid, command, () => m.ledger.reprocess(guid, this.maxAttempts));
  }

  toString(): string {
    return `reprocess(${describeTarget(this.target)}, max ${this.maxAttempts})`;
  }
}
