import { describe, expect, it } from "vitest";
import {
  MAX_CRON_LENGTH,
  canonicalJson,
  checkScheduleDefinition,
  checkSubscription,
  classifyInquiry,
  decideLock,
  dueSlot,
  fingerprintRequest,
  isDefiniteCode,
  isCronSlot,
  isValidCron,
  isValidScheduleName,
  lockCommands,
  lockEvents,
  newGuidEntry,
  newLock,
  newSchedule,
  readChannelRequest,
  readCoreAnswer,
  rootTransitions,
  type MachineGraph,
  type MachineGraphEdge,
} from "../src/index.ts";
import { isValidQueueName } from "../src/queue.input.ts";

describe("canonicalJson, every kind of value", () => {
  it("writes null, booleans, numbers, strings, arrays and objects (also without a prototype) as JSON, keys sorted", () => {
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(false)).toBe("false");
    expect(canonicalJson({ z: [true, false, null], a: [], m: [1, "x", [2, 3], {}] })).toBe(
      '{"a":[],"m":[1,"x",[2,3],{}],"z":[true,false,null]}',
    );
    expect(canonicalJson(Object.assign(Object.create(null) as object, { b: 1, a: 2 }))).toBe('{"a":2,"b":1}');
  });
});

describe("fingerprintRequest", () => {
  it("is sha256: and the hex digest of the canonical JSON", () => {
    expect(fingerprintRequest({ b: [true, null], a: 1 })).toBe(
      "sha256:1cc69c7fa23616ca2ec3ee70d24390a6225c8832db8a4c814c7e0e7f942f8668",
    );
  });

  it("calls what it refuses a request", () => {
    expect(() => fingerprintRequest({ a: undefined })).toThrow(/^the request must be plain JSON; found undefined at \$\.a$/);
  });
});

describe("the relay's readings of core answers and channel requests", () => {
  it("a core answer needs HTTP 200, a body, and a JSON object", () => {
    const body = '{"guid":"g-1","code":"0000"}';
    expect(readCoreAnswer("g-1", 200, body)).toEqual({ code: "0000", response: body });
    expect(readCoreAnswer("g-1", 200, null)).toBeNull();
    expect(readCoreAnswer("g-1", 201, body)).toBeNull();
    for (const text of ["5", "null", '"g-1"', '[{"guid":"g-1","code":"0000"}]', "not json"]) {
      expect(readCoreAnswer("g-1", 200, text), text).toBeNull();
    }
  });

  it("an inquiry that failed, or a 404 without a body naming the GUID, leaves the entry as it is", () => {
    expect(classifyInquiry("g-1", { kind: "failed", reason: "timeout" })).toBeNull();
    expect(classifyInquiry("g-1", { kind: "answered", status: 404, body: null })).toBeNull();
    expect(classifyInquiry("g-1", { kind: "answered", status: 404, body: '{"guid":"g-2"}' })).toBeNull();
    expect(classifyInquiry("g-1", { kind: "answered", status: 404, body: '{"guid":"g-1"}' })).toEqual({ kind: "not-found" });
  });

  it("a definite code is a string, not something that only reads as one", () => {
    expect(isDefiniteCode("B201")).toBe(true);
    expect(isDefiniteCode(["B201"])).toBe(false);
  });

  it("a channel request whose guid is null is missing its GUID", () => {
    expect(readChannelRequest('{"guid":null}')).toEqual({ ok: false, problem: "missing-guid" });
  });
});

describe("schedule rules at their edges", () => {
  it("a name must be a string", () => {
    expect(isValidScheduleName(123)).toBe(false);
    expect(isValidScheduleName("123")).toBe(true);
  });

  it("a cron expression of exactly 200 characters (surrounding spaces included) is accepted, 201 are not", () => {
    expect(isValidCron("0 * * * * ")).toBe(true);
    expect(isValidCron(" 0 * * * *")).toBe(true);
    const padded = (length: number) => `0 * * * *${" ".repeat(length - 9)}`;
    expect(isValidCron(padded(MAX_CRON_LENGTH))).toBe(true);
    expect(isValidCron(padded(MAX_CRON_LENGTH + 1))).toBe(false);
  });

  it("a cron expression that does not parse has no due slot and no slot", () => {
    expect(dueSlot("61 * * * *", "UTC", 0, 10_000_000)).toBeNull();
    expect(isCronSlot("61 * * * *", "UTC", 0)).toBe(false);
  });

  it("the first missed slot may be `from` itself", () => {
    const T = Date.parse("2024-01-01T10:00:00.000Z");
    const HOUR = 3_600_000;
    expect(dueSlot("0 * * * *", "UTC", T, T + 2 * HOUR + 5)).toEqual({ slot: T + 2 * HOUR, firstMissed: T });
  });

  it("says what is wrong with a definition, never quoting it", () => {
    const thrown = (f: () => void) => {
      try {
        f();
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    expect(thrown(() => checkScheduleDefinition("a b", "* * * * *", "UTC", "q"))).toBe(
      "a schedule name is 1 to 100 of A-Z a-z 0-9 . _ - starting with a letter or digit",
    );
    expect(thrown(() => checkScheduleDefinition("a", "* *", "UTC", "q"))).toBe(
      "the cron expression must have 5 fields (or 6 with seconds first) in range, or be an @alias",
    );
    expect(thrown(() => checkScheduleDefinition("a", "* * * * *", "Mars/Base", "q"))).toBe(
      "the timezone must be an IANA name such as UTC or Europe/Berlin",
    );
  });

  it("a schedule and a GUID before their first event", () => {
    expect(newSchedule("n")).toEqual({
      name: "n",
      state: "absent",
      cron: "",
      timezone: "UTC",
      payload: null,
      queue: "default",
      since: 0,
      lastSlot: null,
      fired: 0,
      updatedAt: 0,
      version: 0,
    });
    expect(newGuidEntry("g")).toEqual({
      guid: "g",
      state: "NEW",
      code: "",
      request: "",
      response: null,
      fingerprint: "",
      attempts: 0,
      createdAt: 0,
      updatedAt: 0,
      version: 0,
    });
  });
});

describe("subscription and queue rules: the message names the option", () => {
  const message = (input: Parameters<typeof checkSubscription>[0]) => {
    try {
      checkSubscription(input);
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  it("each malformed option is named", () => {
    expect(message({ name: 5 as never })).toBe(
      "a subscription name is 1 to 128 ASCII letters, digits or . _ - : /, starting with a letter or digit",
    );
    expect(message({ from: -1 })).toBe("from must be a whole number of at least 0 (an event position)");
    expect(message({ types: [] })).toBe("types must name at least one stream type, or be left out");
    expect(message({ types: [["job"]] as never })).toBe(
      "a stream type is lower-case letters and -, such as job, guid or message",
    );
    expect(message({ batchSize: 0 })).toBe("batchSize must be a whole number from 1 to 10000");
    expect(message({ pollMs: 0 })).toBe("pollMs must be a whole number from 1 to 3600000");
    expect(message({ name: "orders", types: ["job"] })).toBe("accepted");
  });

  it("isValidQueueName answers false, not a throw", () => {
    expect(isValidQueueName("")).toBe(false);
    expect(isValidQueueName("emails")).toBe(true);
  });
});

describe("rootTransitions", () => {
  const edge = (source: string, event: string): MachineGraphEdge => ({
    source,
    event,
    target: source,
    targeted: false,
    guard: null,
    actions: ["refuse:no"],
    refusal: true,
    fallback: true,
  });

  it("merges the root's events in the root's order, when the first state lists only later ones", () => {
    const graph: MachineGraph = {
      id: "m",
      initial: "a",
      states: ["a", "b"],
      transitions: [edge("a", "e2"), edge("a", "e3"), edge("b", "e1"), edge("b", "e2"), edge("b", "e3")],
    };
    const root = rootTransitions(graph);
    expect([...root.keys()]).toEqual(["e1", "e2", "e3"]);
    expect(root.get("e1")?.map((t) => t.states)).toEqual([["b"]]);
    expect(root.get("e2")?.map((t) => t.states)).toEqual([["a", "b"]]);
  });
});

describe("lockMachine: a release records the lock it frees", () => {
  it("names the holder, its token and since when", () => {
    const acquired = decideLock(newLock("bulk"), lockCommands.acquire({ owner: "ops-1", leaseMs: 1_000, now: 5_000 }));
    if (!acquired.accepted) throw new Error("refused");
    const released = decideLock(acquired.after, lockCommands.release({ token: 1, now: 5_500 }));
    expect(released.accepted && released.events).toEqual([
      lockEvents.released({ owner: "ops-1", token: 1, since: 5_000, at: 5_500 }),
    ]);
  });
});
