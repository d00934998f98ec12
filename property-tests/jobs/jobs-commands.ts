import type fc from "fast-check";
import { AdvanceClockCommand } from "./advance-clock.command.ts";
import { AdvanceToLeaseBoundaryCommand } from "./advance-to-lease-boundary.command.ts";
import { CancelCommand } from "./cancel.command.ts";
import { ClockJumpCommand } from "./clock-jump.command.ts";
import { ClaimKindsCommand } from "./claim-kinds.command.ts";
import { ClaimManyCommand } from "./claim-many.command.ts";
import { ClaimCommand } from "./claim.command.ts";
import { EnqueueCommand } from "./enqueue.command.ts";
import { FailCommand } from "./fail.command.ts";
import { FinishForgedCommand } from "./finish-forged.command.ts";
import { FinishManyCommand } from "./finish-many.command.ts";
import { FinishCommand } from "./finish.command.ts";
import { HeartbeatCommand } from "./heartbeat.command.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { PruneCommand } from "./prune.command.ts";
import { RedriveCommand } from "./redrive.command.ts";
import { SetQueueLimitCommand } from "./set-queue-limit.command.ts";
import { WorkerDiesCommand } from "./worker-dies.command.ts";

/**
 * Every command of the jobs model, as arbitraries for `fc.commands`. Enqueues, claims and finishes
 * are listed twice: they are what moves jobs along, and they make dead jobs common enough to redrive.
 * The batch forms (`claimMany`, `finishMany`) must behave as their single forms run in sequence.
 * Cancels take live jobs away from the workers that believe they hold them.
 * Jobs go to 3 named queues with 3 priorities, and `setQueueLimit` limits them. Enqueues give some
 * jobs a kind, and `claimKinds` claims only some kinds (the other claims take every job).
 * `fail` reports a failure whose effect is unknown, with a held, stale, future or current token.
 * The clock also jumps, backwards or forwards (`clockJump`), as a stepped wall clock does.
 * Retention (`prune`) is listed once: it removes finished jobs, so more often would leave runs
 * with few jobs to claim, finish and redrive.
 */
export function jobsCommands(): fc.Arbitrary<JobsCommand>[] {
  return [
    EnqueueCommand.arbitrary(),
    EnqueueCommand.arbitrary(),
    ClaimCommand.arbitrary(),
    ClaimCommand.arbitrary(),
    FinishCommand.arbitrary(),
    FinishCommand.arbitrary(),
    ClaimManyCommand.arbitrary(),
    ClaimManyCommand.arbitrary(),
    ClaimKindsCommand.arbitrary(),
    FinishManyCommand.arbitrary(),
    FailCommand.arbitrary(),
    FinishForgedCommand.arbitrary(),
    HeartbeatCommand.arbitrary(),
    AdvanceClockCommand.arbitrary(),
    AdvanceToLeaseBoundaryCommand.arbitrary(),
    ClockJumpCommand.arbitrary(),
    WorkerDiesCommand.arbitrary(),
    RedriveCommand.arbitrary(),
    RedriveCommand.arbitrary(),
    CancelCommand.arbitrary(),
    SetQueueLimitCommand.arbitrary(),
    SetQueueLimitCommand.arbitrary(),
    PruneCommand.arbitrary(),
  ];
}
