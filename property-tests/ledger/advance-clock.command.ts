import fc from "fast-check";
import type { LedgerCommand } from "./ledger-command.ts";
import type { LedgerWorld } from "./ledger-world.ts";

/** The clock moves on, across every age limit the other commands use. */
export class AdvanceClockCommand implements LedgerCommand {
  constructor(readonly ms: number) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return fc.constantFrom(1, 499, 500, 999, 1_000, 4_999, 5_000, 6_000, 10_000).map((ms) => new AdvanceClockCommand(ms));
  }

  check(): boolean {
    return true;
  }

  run(m: LedgerWorld): Promise<void> {
    m.clock.advance(this.ms);
    return Promise.resolve();
  }

  toString(): string {
    return `advance(${this.ms} ms)`;
  }
}
