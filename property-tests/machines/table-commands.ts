import fc from "fast-check";
import {
  guidCommands,
  jobCommands,
  messageCommands,
  type GuidCommand,
  type JsonValue,
  type JobCommand,
  type MessageCommand,
  type MessageVerdictFacts,
} from "@verq/core";

/**
 * Commands for the three machines, drawn from small domains so that random sequences reach every
 * state and both sides of every guard: few ids, owners, tokens, files and fingerprints, times on
 * a coarse grid around the durations the commands carry.
 */
const time = fc.integer({ min: 0, max: 12 }).map((n) => n * 500);
const duration = fc.constantFrom(0, 500, 1_000, 2_500);

const jobEnqueue = fc
  .record({
    payload: fc.constantFrom<JsonValue>({ a: 1, b: 2 }, { b: 2, a: 1 }, { a: 2 }, null),
    maxAttempts: fc.integer({ min: 1, max: 3 }),
    deadline: fc.integer({ min: 1, max: 14 }).map((n) => n * 500),
    availableAt: time,
    orderingKey: fc.constantFrom(null, "k"),
    now: time,
  })
  .map(jobCommands.enqueue);

/**
 * Weighted towards the commands that move a job on (claims, finishes, redrives), so that runs
 * reach `dead` and the redrive guards behind it, not only the refusals of a job never enqueued.
 */
export const jobCommand: fc.Arbitrary<JobCommand> = fc.oneof(
  { arbitrary: jobEnqueue, weight: 2 },
  {
    arbitrary: fc.record({ owner: fc.constantFrom("w1", "w2"), leaseMs: duration, now: time }).map(jobCommands.claim),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({
        token: fc.integer({ min: 0, max: 2 }),
        outcome: fc.constantFrom("ok" as const, "retry" as const, "permanent" as const),
        retryDelayMs: duration,
        now: time,
      })
      .map(jobCommands.finish),
    weight: 3,
  },
  {
    arbitrary: fc.record({ token: fc.integer({ min: 0, max: 2 }), leaseMs: duration, now: time }).map(jobCommands.heartbeat),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        note: fc.constantFrom("OPS-1", "INC#42", "", "bad\nnote", "free text"),
        deadline: fc.option(time, { nil: null }),
        recentRedrives: fc.integer({ min: 0, max: 3 }),
        limit: fc.record({ max: fc.integer({ min: 1, max: 2 }), windowMs: duration }),
        originalWindowMs: duration,
        now: time,
      })
      .map(jobCommands.redrive),
    weight: 3,
  },
  {
    arbitrary: fc.record({ note: fc.constantFrom("OPS-1", "", "free text"), now: time }).map(jobCommands.cancel),
    weight: 1,
  },
);

const GUIDS = ["G-1", "G-2", "-bad"] as const;
const fingerprint = fc.constantFrom("f1", "f2");
const code = fc.constantFrom("0000", "E100");

const guidReceive = fc
  .record({ guid: fc.constantFrom(...GUIDS), request: fc.constantFrom("r1", "r2"), fingerprint, now: time })
  .map(guidCommands.receive);

export const guidCommand: fc.Arbitrary<GuidCommand> = fc.oneof(
  guidReceive,
  fc.record({ now: time }).map(guidCommands.send),
  fc.record({ fingerprint, maxAttempts: fc.integer({ min: 1, max: 3 }), now: time }).map(guidCommands.repeat),
  fc
    .record({
      attempt: fc.integer({ min: 0, max: 3 }),
      outcome: fc.oneof(
        fc.record({ kind: fc.constant("answered" as const), code, response: fc.constantFrom("ok", "no") }),
        fc.constantFrom({ kind: "no-answer" as const }, { kind: "invalid-answer" as const }, { kind: "not-sent" as const }),
      ),
      now: time,
    })
    .map(guidCommands.record),
  fc
    .record({
      answer: fc.oneof(
        fc.record({ kind: fc.constant("found" as const), code, response: fc.constantFrom("ok", "no") }),
        fc.constant({ kind: "not-found" as const }),
      ),
      minAgeMs: duration,
      now: time,
    })
    .map(guidCommands.resolve),
  fc.record({ maxAttempts: fc.integer({ min: 1, max: 3 }), now: time }).map(guidCommands.reprocess),
  fc.record({ olderThanMs: duration, now: time }).map(guidCommands.recover),
  fc.record({ retentionMs: duration, resendWindowMs: duration, now: time }).map(guidCommands.purge),
);

const FILES = ["a.json", "b.json", "..", "in/a.json"] as const;
const verdict: fc.Arbitrary<MessageVerdictFacts> = fc.oneof(
  fc.record({
    kind: fc.constant("valid" as const),
    inserted: fc.boolean(),
    key: fc.constantFrom("M1", "M2"),
    group: fc.constant("O-1"),
    sequence: fc.integer({ min: 1, max: 3 }),
    amount: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
    message: fc.constant("{}"),
    file: fc.constantFrom(...FILES),
  }),
  fc.record({
    kind: fc.constant("invalid" as const),
    reason: fc.constantFrom("parse" as const, "too-large" as const, "missing-field" as const, "handler" as const),
    detail: fc.constant("not valid"),
    file: fc.constantFrom(...FILES),
  }),
);

const messageSettle = fc
  .record({
    claimId: fc.constantFrom("c1", "c2"),
    owner: fc.constantFrom("1@h", "2@h"),
    file: fc.constantFrom(...FILES),
    recovered: fc.boolean(),
    verdict,
    now: time,
  })
  .map(messageCommands.settle);

export const messageCommand: fc.Arbitrary<MessageCommand> = fc.oneof(
  messageSettle,
  fc.record({ file: fc.constantFrom(...FILES), now: time }).map(messageCommands.replay),
);

/**
 * The commands that create each stream (a job's enqueue, a GUID's receipt, a file's settle):
 * most runs start with one, so that they go on past the blank stream's refusals.
 */
export const creations = { job: jobEnqueue, guid: guidReceive, message: messageSettle } as const;
