import { describe, expect, it } from "vitest";
import {
  GuidError,
  MessageError,
  VerqError,
  channelRequestError,
  invalidGuidError,
  isGuidError,
  messageRefusalError,
  payloadMismatchError,
  purgeRefusalError,
  receiptRefusalError,
  checkScheduleDefinition,
  scheduleRefusalError,
  unknownGuidError,
  type GuidRefusal,
  type MessageRefusal,
  type ScheduleRefusal,
} from "../src/index.ts";

const GUID_MESSAGE = "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit";

describe("scheduleRefusalError: a define's invalid input is an error, every other refusal an answer", () => {
  it("maps each invalid definition to its code and words, and an unhandled command to VERQ_UNEXPECTED", () => {
    const cases: [ScheduleRefusal, string, string][] = [
      [
        "invalid-name",
        "VERQ_INVALID_ARGUMENT",
        "a schedule name is 1 to 100 of A-Z a-z 0-9 . _ - starting with a letter or digit",
      ],
      [
        "invalid-cron",
        "VERQ_INVALID_CRON",
        "the cron expression must have 5 fields (or 6 with seconds first) in range, or be an @alias",
      ],
      ["invalid-timezone", "VERQ_INVALID_TIMEZONE", "the timezone must be an IANA name such as UTC or Europe/Berlin"],
      ["invalid-queue", "VERQ_INVALID_ARGUMENT", "a queue name must be 1 to 256 printable characters"],
      ["unhandled", "VERQ_UNEXPECTED", "schedule refused: unhandled"],
    ];
    for (const [refusal, code, message] of cases) {
      const error = scheduleRefusalError(refusal);
      expect(error).toBeInstanceOf(VerqError);
      expect({ code: error?.code, message: error?.message }).toEqual({ code, message });
    }
  });

  it("says for each refused part what checkScheduleDefinition throws for it before any store is opened", () => {
    const bad: [ScheduleRefusal, () => void][] = [
      ["invalid-name", () => checkScheduleDefinition("a b", "* * * * *", "UTC", "q")],
      ["invalid-cron", () => checkScheduleDefinition("a", "* *", "UTC", "q")],
      ["invalid-timezone", () => checkScheduleDefinition("a", "* * * * *", "Mars/Base", "q")],
      ["invalid-queue", () => checkScheduleDefinition("a", "* * * * *", "UTC", "")],
    ];
    for (const [refusal, check] of bad) {
      const expected = scheduleRefusalError(refusal);
      expect(check).toThrow(expect.objectContaining({ code: expected?.code, message: expected?.message }));
    }
  });

  it("answers null for the refusals that are answers: unchanged, not-found and the fires not taken", () => {
    for (const refusal of ["unchanged", "not-found", "already-fired", "not-due", "not-a-slot"] as const) {
      expect(scheduleRefusalError(refusal)).toBeNull();
    }
  });
});

describe("the guid machine's refusals as errors", () => {
  it("a refused first receipt is VERQ_INVALID_GUID for an invalid GUID, VERQ_UNEXPECTED for anything else", () => {
    const invalid = receiptRefusalError("g-1", "invalid-guid");
    expect(invalid).toBeInstanceOf(GuidError);
    expect(invalid).toMatchObject({ code: "VERQ_INVALID_GUID", message: GUID_MESSAGE });
    const other = receiptRefusalError("g-1", "stream-id-mismatch");
    expect(other).not.toBeInstanceOf(GuidError);
    expect(other).toMatchObject({ code: "VERQ_UNEXPECTED", message: "the receipt of guid g-1 was refused: stream-id-mismatch" });
  });

  it("a purge refused for its retention is VERQ_PURGE_RETENTION_TOO_SHORT with both figures; any other refusal keeps the entry", () => {
    const error = purgeRefusalError("retention-too-short", 1_000, 2_000);
    expect(isGuidError(error, "VERQ_PURGE_RETENTION_TOO_SHORT")).toBe(true);
    expect(error?.message).toBe(
      "the retention (1000 ms) must be longer than the channel's resend window (2000 ms); a resend after the purge would be processed as new",
    );
    for (const refusal of ["too-young", "not-done", "unhandled"] as GuidRefusal[]) {
      expect(purgeRefusalError(refusal, 1_000, 2_000)).toBeNull();
    }
  });

  it("names the unknown GUID, says what a GUID is, and refuses another payload with E422's error", () => {
    expect(unknownGuidError("g-9")).toMatchObject({
      code: "VERQ_UNKNOWN_GUID",
      message: "the ledger has no entry for GUID g-9; check the GUID",
      name: "GuidError",
    });
    expect(invalidGuidError()).toMatchObject({ code: "VERQ_INVALID_GUID", message: GUID_MESSAGE });
    expect(payloadMismatchError()).toMatchObject({
      code: "VERQ_GUID_PAYLOAD_MISMATCH",
      message: "this GUID was already used with another payload; a new transfer needs a new GUID",
    });
  });

  it("a channel request refused before the ledger gets the code of its problem", () => {
    expect(channelRequestError("invalid-json")).toEqual({
      code: "VERQ_INVALID_JSON",
      message: "the body must be UTF-8 JSON, with finite numbers, nested at most 256 deep",
    });
    expect(channelRequestError("not-an-object")).toEqual({
      code: "VERQ_INVALID_BODY",
      message: "the body must be a JSON object with a guid",
    });
    expect(channelRequestError("missing-guid")).toEqual({
      code: "VERQ_MISSING_GUID",
      message: 'the body must carry the transfer\'s GUID as "guid"',
    });
    expect(channelRequestError("invalid-guid")).toEqual({ code: "VERQ_INVALID_GUID", message: GUID_MESSAGE });
  });
});

describe("messageRefusalError: a refused settle or replay is VERQ_MESSAGE_REFUSED, but for already-settled", () => {
  it("names the message, the command and the refusal", () => {
    for (const refusal of ["stale-claim", "not-in-error", "other-file", "unhandled"] as MessageRefusal[]) {
      const error = messageRefusalError("m-1", "message.settle", refusal);
      expect(error).toBeInstanceOf(MessageError);
      expect(error).toMatchObject({
        code: "VERQ_MESSAGE_REFUSED",
        message: `message m-1: message.settle refused (${refusal}); nothing was recorded`,
      });
    }
  });

  it("answers null for already-settled: the message as recorded is the answer", () => {
    expect(messageRefusalError("m-1", "message.settle", "already-settled")).toBeNull();
  });
});
