export { backoffDelay, defaultBackoff, type BackoffPolicy } from "./backoff.ts";
export { ManualClock, systemClock, type Clock } from "./clock.ts";
export {
  BadAck,
  Permanent,
  Retryable,
  VERQ_ERROR_CODES,
  VerqError,
  VersionConflict,
  coerceError,
  isVerqError,
  type VerqErrorCode,
} from "./errors.ts";
export { MAX_JSON_DEPTH, canonicalJson, type JsonValue } from "./json.ts";
export {
  createMachineDecider,
  type Decider,
  type Decision,
  type DecidingContext,
  type MachineBinding,
  type MachineExecution,
} from "./decider.ts";
export { compileMachineTable, type TableSnapshot, type TableStep } from "./machine-table.ts";
export { observeTransitions, type TransitionObserver } from "./transition-observer.ts";
export { VERQ_MACHINES, guardName, machineGraph, type MachineGraph, type MachineGraphEdge } from "./machine-graph.ts";
export { machineJson } from "./machine-json.ts";
export { isDrawnTransition, machineMermaid, transitionLabel } from "./machine-mermaid.ts";
export { rootTransitions, type RootTransition } from "./machine-root.ts";
export { machineSource } from "./machine-source.ts";
export {
  jobCommands,
  type CancelCommand,
  type ClaimCommand,
  type EnqueueCommand,
  type FailCommand,
  type FinishCommand,
  type HandledKinds,
  type HeartbeatCommand,
  type JobCommand,
  type PruneCommand,
  type RedriveCommand,
} from "./job.commands.ts";
export {
  createJobDecider,
  decideJob,
  defineJobStream,
  jobStreamDefinition,
  type JobDecider,
  type JobDecision,
  type JobStreamDefinition,
} from "./job.decide.ts";
export {
  JOB_EVENT_TYPES,
  JOB_RETENTION_ID,
  JOB_RETENTION_STREAM,
  JOB_STREAM,
  jobEvents,
  type JobCancelled,
  type JobEnqueued,
  type JobEvent,
  type JobEventType,
  type JobFailed,
  type JobPruned,
  type JobsPruned,
} from "./job.events.ts";
export { alreadyEnqueuedJob, jobRefusalError, unknownJobError } from "./job.errors.ts";
export { evolveJob, foldJob } from "./job.evolve.ts";
export {
  MAX_ATTEMPTS_LIMIT,
  MAX_IDENTIFIER_LENGTH,
  MAX_CLAIM_KINDS,
  MAX_LEASE_MS,
  KIND_NAME_PATTERN,
  checkFutureTime,
  checkHandledKinds,
  checkIdentifier,
  checkKindName,
  checkLeaseMs,
  checkMaxAttempts,
  checkOutcome,
  checkTime,
  checkToken,
} from "./job.input.ts";
export { jobMachine, type JobMachine, type JobMachineContext, type JobRefusal } from "./job.machine.ts";
export { sendVerdict, type FailureClassifier, type SendSettlement, type SendVerdict } from "./job.send.ts";
export {
  FAILURE_CATEGORIES,
  describeFailure,
  failureCategoryOf,
  isJobFailure,
  type FailureCategory,
  type JobFailure,
  type RecordedFailure,
} from "./job.failure.ts";
export { endsRedriveSweep, sweepSkippedReasons } from "./job.sweep.ts";
export {
  DEAD_REASONS,
  FINISH_OUTCOMES,
  JOB_STATES,
  newJob,
  type ArchivedJob,
  type DeadReason,
  type FinishOutcome,
  type Job,
  type JobState,
  type JobStreamState,
  type NewJob,
  type TraceContext,
} from "./job.types.ts";
export {
  lockCommands,
  type LockAcquireCommand,
  type LockCommand,
  type LockHeartbeatCommand,
  type LockReleaseCommand,
} from "./lock.commands.ts";
export {
  createLockDecider,
  decideLock,
  defineLockStream,
  lockStreamDefinition,
  type LockDecider,
  type LockDecision,
  type LockStreamDefinition,
} from "./lock.decide.ts";
export {
  LOCK_EVENT_TYPES,
  LOCK_STREAM,
  lockEvents,
  type LockAcquired,
  type LockEvent,
  type LockEventType,
  type LockExpired,
  type LockExtended,
  type LockReleased,
} from "./lock.events.ts";
export { evolveLock, foldLock } from "./lock.evolve.ts";
export { lockMachine, type LockMachine, type LockMachineContext, type LockRefusal } from "./lock.machine.ts";
export { BULK_REDRIVE_LOCK, newLock, type LockState, type OperatorLock } from "./lock.types.ts";
export { seededRng, type Rng } from "./random.ts";
export {
  scheduleCommands,
  type ScheduleCommand,
  type ScheduleDefineCommand,
  type ScheduleFireCommand,
  type ScheduleRemoveCommand,
} from "./schedule.commands.ts";
export {
  MAX_CRON_LENGTH,
  SCHEDULE_NAME_PATTERN,
  checkScheduleDefinition,
  dueSlot,
  isCronSlot,
  isValidCron,
  isValidScheduleName,
  isValidTimezone,
  scheduleDueSlot,
  scheduleJobId,
  type DueSlot,
} from "./schedule.cron.ts";
export { scheduleRefusalError } from "./schedule.errors.ts";
export {
  createScheduleDecider,
  decideSchedule,
  defineScheduleStream,
  scheduleStreamDefinition,
  type ScheduleDecider,
  type ScheduleDecision,
  type ScheduleStreamDefinition,
} from "./schedule.decide.ts";
export {
  SCHEDULE_EVENT_TYPES,
  SCHEDULE_STREAM,
  scheduleEvents,
  type ScheduleAdded,
  type ScheduleEvent,
  type ScheduleEventType,
  type ScheduleFired,
  type ScheduleRemoved,
  type ScheduleUpdated,
} from "./schedule.events.ts";
export { evolveSchedule, foldSchedule } from "./schedule.evolve.ts";
export { scheduleMachine, type ScheduleMachine, type ScheduleMachineContext, type ScheduleRefusal } from "./schedule.machine.ts";
export { newSchedule, type Schedule, type ScheduleDefinition, type ScheduleState } from "./schedule.types.ts";
export { REDRIVE_NOTE_MAX_LENGTH, REDRIVE_NOTE_PATTERN, isValidRedriveNote } from "./redrive-note.ts";
export {
  MAX_SUBSCRIPTION_BATCH,
  MAX_SUBSCRIPTION_POLL_MS,
  SUBSCRIPTION_NAME_PATTERN,
  checkSubscription,
  type CheckedSubscription,
  type SubscriptionInput,
} from "./subscription.input.ts";
export {
  classifyCoreCall,
  classifyInquiry,
  readChannelRequest,
  readCoreAnswer,
  relayAnswer,
  type ChannelRequest,
  type ChannelRequestProblem,
  type CoreCallResult,
  type CoreInquiryResult,
  type CoreOutcome,
  type InquiryAnswer,
} from "./guid.answer.ts";
export { GUID_CODES, isDefiniteCode, type GuidCode } from "./guid.codes.ts";
export {
  guidCommands,
  type GuidCommand,
  type PurgeCommand,
  type ReceiveCommand,
  type RecordCommand,
  type RecoverCommand,
  type RepeatCommand,
  type ReprocessCommand,
  type ResolveCommand,
  type SendCommand,
} from "./guid.commands.ts";
export {
  createGuidDecider,
  decideGuid,
  defineGuidStream,
  guidStreamDefinition,
  type GuidDecider,
  type GuidDecision,
  type GuidStreamDefinition,
} from "./guid.decide.ts";
export {
  GuidError,
  channelRequestError,
  invalidGuidError,
  isGuidError,
  payloadMismatchError,
  purgeRefusalError,
  receiptRefusalError,
  unknownGuidError,
  type GuidErrorCode,
} from "./guid.errors.ts";
export { guidReply, type GuidReply } from "./guid.reply.ts";
export {
  GUID_EVENT_TYPES,
  GUID_STREAM,
  LEDGER_AUDIT_ID,
  LEDGER_AUDIT_STREAM,
  guidEvents,
  type GuidEvent,
  type GuidEventType,
  type GuidReceived,
  type LedgerPurged,
  type SendReason,
} from "./guid.events.ts";
export { evolveGuid, foldGuid } from "./guid.evolve.ts";
export { fingerprintRequest } from "./guid.fingerprint.ts";
export { GUID_MAX_LENGTH, GUID_PATTERN, isValidGuid } from "./guid.input.ts";
export { guidMachine, type GuidMachine, type GuidMachineContext, type GuidRefusal } from "./guid.machine.ts";
export { endsPurgeScan } from "./guid.purge.ts";
export { isOldEnough, retentionCoversResendWindow } from "./guid.rules.ts";
export { GUID_STATES, newGuidEntry, type GuidEntry, type GuidState, type LedgerEntry, type NewGuidEntry } from "./guid.types.ts";
export {
  messageCommands,
  type MessageCommand,
  type MessageReplayCommand,
  type MessageSettleCommand,
  type MessageVerdictFacts,
} from "./message.commands.ts";
export {
  createMessageDecider,
  decideMessage,
  defineMessageStream,
  messageStreamDefinition,
  type MessageDecider,
  type MessageDecision,
  type MessageStreamDefinition,
} from "./message.decide.ts";
export { MessageError, messageRefusalError, type MessageErrorCode } from "./message.errors.ts";
export {
  MESSAGE_EVENT_TYPES,
  MESSAGE_STREAM,
  messageEvents,
  type MessageClaimed,
  type MessageDuplicated,
  type MessageEvent,
  type MessageEventType,
  type MessageRecorded,
  type MessageRejected,
  type MessageReplayed,
} from "./message.events.ts";
export { evolveMessage, foldMessage } from "./message.evolve.ts";
export { messageMachine, type MessageMachine, type MessageMachineContext, type MessageRefusal } from "./message.machine.ts";
export {
  MESSAGE_ERROR_REASONS,
  MESSAGE_STATES,
  messageErrorKind,
  newMessage,
  settledFolder,
  type Message,
  type MessageErrorKind,
  type MessageErrorReason,
  type MessageOutcome,
  type MessageState,
} from "./message.types.ts";
export { queueCommands, type QueueCommand, type QueueSetLimitCommand } from "./queue.commands.ts";
export {
  createQueueDecider,
  decideQueue,
  defineQueueStream,
  queueStreamDefinition,
  type QueueDecider,
  type QueueDecision,
  type QueueStreamDefinition,
} from "./queue.decide.ts";
export {
  QUEUE_EVENT_TYPES,
  QUEUE_STREAM,
  queueEvents,
  type QueueEvent,
  type QueueEventType,
  type QueueLimitSet,
} from "./queue.events.ts";
export { evolveQueue, foldQueue } from "./queue.evolve.ts";
export { MAX_PRIORITY, MAX_QUEUE_LIMIT, MIN_PRIORITY, checkPriority, checkQueueLimit, checkQueueName } from "./queue.input.ts";
export { queueMachine, type QueueMachine, type QueueMachineContext, type QueueRefusal } from "./queue.machine.ts";
export { DEFAULT_QUEUE, isQueueFull, newQueue, type QueueLimitState, type QueueLoad, type QueueSettings } from "./queue.types.ts";

// Every stream type of the event log, one list.
export {
  STREAM_MACHINES,
  STREAM_TYPES,
  VERQ_MACHINE_NAMES,
  type StreamDecider,
  type StreamType,
  type VerqMachineName,
} from "./streams.ts";
export { VERQ_STREAM_DEFINITIONS, type DecidedStreamType } from "./own-streams.ts";
export {
  defineStream,
  defineVerqStream,
  describeCommandType,
  isStreamDefinition,
  type AnyStreamDefinition,
  type EventReader,
  type DeclaredCommand,
  type DeclaredEvent,
  type DeclaredStreamState,
  type EventSchema,
  type JsonObject,
  type StoredShape,
  type StreamDeclaration,
  type StreamDecision,
  type StreamDefinition,
  type StreamEventShape,
  type StreamParts,
} from "./stream-definition.ts";
