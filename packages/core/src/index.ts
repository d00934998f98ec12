export { backoffDelay, defaultBackoff, type BackoffPolicy } from "./backoff.ts";
export { ManualClock, systemClock, type Clock } from "./clock.ts";
export {
  BadAck,
  Permanent,
  Retryable,
  VerqError,
  VersionConflict,
  coerceError,
  isVerqError,
  type VerqErrorCode,
} from "./errors.ts";
export { canonicalJson, type JsonValue } from "./json.ts";
export { jobCommands, type ClaimCommand, type FinishCommand, type HeartbeatCommand, type JobCommand, type RedriveCommand } from "./job.commands.ts";
export { createJobDecider, decideJob, type JobDecider, type JobDecision } from "./job.decide.ts";
export { JOB_EVENT_TYPES, JOB_STREAM, jobEvents, type JobEvent, type JobEventType } from "./job.events.ts";
export { evolveJob, foldJob } from "./job.evolve.ts";
export {
  MAX_ATTEMPTS_LIMIT,
  MAX_IDENTIFIER_LENGTH,
  MAX_LEASE_MS,
  checkFutureTime,
  checkIdentifier,
  checkLeaseMs,
  checkMaxAttempts,
  checkOutcome,
  checkTime,
  checkToken,
} from "./job.input.ts";
export { jobMachine, type JobMachine, type JobMachineContext, type JobRefusal } from "./job.machine.ts";
export type { DeadReason, FinishOutcome, Job, JobState } from "./job.types.ts";
export { seededRng, type Rng } from "./random.ts";
export { REDRIVE_NOTE_MAX_LENGTH, REDRIVE_NOTE_PATTERN, isValidRedriveNote } from "./redrive-note.ts";
