import type fc from "fast-check";
import { guidCommands } from "@verq/core";
import { runChange } from "./change.ts";
import type { LedgerCommand } from "./ledger-command.ts";
import { describeTarget, pick, targets, type LedgerWorld, type Target } from "./ledger-world.ts";

/** `GuidLedger.send`: RECEIVED → SENT before the core is called, as `guid.send` decides. */
export class SendCommand implements LedgerCommand {
  constructor(readonly target: Target) {}

  static arbitrary(): fc.Arbitrary<LedgerCommand> {
    return targets().map((target) => new SendCommand(target));
  }

  check(): boolean {
    return true;
  }

  run(m: LedgerWorld): Promise<void> {
    const guid = pick(m, this.target);
    return runChange(m, "send", guid, guidCommands.send({ now: m.clock.now() }), () => m.ledger.send(guid));
  }

  toString(): string {
    return `send(${describeTarget(this.target)})`;
  }
}
