import { createActor } from "xstate";
import { describe, expect, it } from "vitest";
import {
  createLockDecider,
  decideLock,
  evolveLock,
  foldLock,
  lockCommands,
  lockEvents,
  machineGraph,
  newLock,
  lockMachine,
  type LockDecider,
  type LockDecision,
  type LockEvent,
  type OperatorLock,
} from "../src/index.ts";

function accepted(decision: LockDecision): OperatorLock {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const LEASE = 1_000;
const acquire = (owner: string, now: number) => lockCommands.acquire({ owner, leaseMs: LEASE, now });
const heartbeat = (token: number, now: number) => lockCommands.heartbeat({ token, leaseMs: LEASE, now });
const release = (token: number, now: number) => lockCommands.release({ token, now });

// Both executions of the one machine: the compiled table (the store's) and XState's interpreter.
const DECIDERS: [string, LockDecider][] = [
  ["table", decideLock],
  ["xstate", createLockDecider(lockMachine, "xstate")],
];

for (const [execution, decide] of DECIDERS) {
  describe(`lockMachine (${execution})`, () => {
    const held = accepted(decide(newLock("bulk-redrive"), acquire("ops-1:10", 5_000)));

    it("O1: a free lock is acquired with token 1, the owner, since now and a lease until now + lease", () => {
      const decision = decide(newLock("bulk-redrive"), acquire("ops-1:10", 5_000));
      expect(decision).toEqual({
        accepted: true,
        after: {
          name: "bulk-redrive",
          state: "held",
          owner: "ops-1:10",
          token: 1,
          since: 5_000,
          leaseUntil: 6_000,
          updatedAt: 5_000,
          version: 1,
        },
        events: [lockEvents.acquired({ owner: "ops-1:10", token: 1, leaseUntil: 6_000, at: 5_000 })],
      });
    });

    it("O1: a held lock refuses a second acquire while the lease runs (leaseUntil - 1) and hands over at leaseUntil", () => {
      expect(decide(held, acquire("ops-2:20", 5_999))).toEqual({ accepted: false, refusal: "held", command: "lock.acquire" });
      const taken = decide(held, acquire("ops-2:20", 6_000));
      expect(taken.accepted && taken.events).toEqual([
        lockEvents.expired({ owner: "ops-1:10", token: 1, since: 5_000, at: 6_000 }),
        lockEvents.acquired({ owner: "ops-2:20", token: 2, leaseUntil: 7_000, at: 6_000 }),
      ]);
      expect(accepted(taken)).toMatchObject({ state: "held", owner: "ops-2:20", token: 2, since: 6_000, version: 3 });
    });

    it("O1: a heartbeat extends the lease with the current token before leaseUntil, and is refused at leaseUntil", () => {
      const extended = accepted(decide(held, heartbeat(1, 5_999)));
      expect(extended).toMatchObject({ state: "held", owner: "ops-1:10", token: 1, since: 5_000, leaseUntil: 6_999, version: 2 });
      expect(decide(held, heartbeat(1, 6_000))).toEqual({
        accepted: false,
        refusal: "lease-expired",
        command: "lock.heartbeat",
      });
    });

    it("O1: heartbeat and release are refused with another token (the holder's token fences it), and on a free lock", () => {
      expect(decide(held, heartbeat(2, 5_500))).toMatchObject({ accepted: false, refusal: "stale-token" });
      expect(decide(held, release(0, 5_500))).toMatchObject({ accepted: false, refusal: "stale-token" });
      const taken = accepted(decide(held, acquire("ops-2:20", 6_000)));
      // The old holder comes back after the takeover: its token 1 is no longer the lock's.
      expect(decide(taken, heartbeat(1, 6_001))).toMatchObject({ accepted: false, refusal: "stale-token" });
      expect(decide(taken, release(1, 6_001))).toMatchObject({ accepted: false, refusal: "stale-token" });
      expect(decide(newLock("x"), heartbeat(1, 1))).toMatchObject({ accepted: false, refusal: "not-held" });
      expect(decide(newLock("x"), release(1, 1))).toMatchObject({ accepted: false, refusal: "not-held" });
    });

    it("O1: release with the current token frees the lock (also after the lease ran out if nobody took it); the next acquire gets the next token", () => {
      for (const now of [5_500, 9_000]) {
        const free = accepted(decide(held, release(1, now)));
        expect(free).toMatchObject({ state: "free", owner: null, token: 1, since: null, leaseUntil: null, version: 2 });
        expect(decide(free, release(1, now + 1))).toMatchObject({ accepted: false, refusal: "not-held" });
        expect(accepted(decide(free, acquire("ops-3:30", now + 1)))).toMatchObject({
          state: "held",
          owner: "ops-3:30",
          token: 2,
        });
      }
    });
  });
}

describe("lock events", () => {
  it("O1: a lock is known from its last event alone: evolving it onto any lock at the version before equals the fold of the stream", () => {
    const events: LockEvent[] = [];
    let lock = newLock("bulk-redrive");
    const steps = [
      acquire("a:1", 0),
      heartbeat(1, 300),
      heartbeat(1, 600),
      acquire("b:2", 1_600),
      release(2, 1_700),
      acquire("c:3", 1_800),
    ];
    for (const command of steps) {
      const decision = decideLock(lock, command);
      if (!decision.accepted) throw new Error(`refused ${command.type}: ${decision.refusal}`);
      events.push(...decision.events);
      lock = decision.after;
      const last = events.at(-1) as LockEvent;
      const unrelated: OperatorLock = { ...newLock("bulk-redrive"), token: 99, owner: "zz", version: lock.version - 1 };
      expect(evolveLock(unrelated, last)).toEqual(lock);
      expect(foldLock("bulk-redrive", events)).toEqual(lock);
    }
    expect(events.map((e) => e.type)).toEqual([
      "lock.acquired",
      "lock.extended",
      "lock.extended",
      "lock.expired",
      "lock.acquired",
      "lock.released",
      "lock.acquired",
    ]);
    expect(lock).toMatchObject({ owner: "c:3", token: 3, version: 7 });
  });

  it("the lock machine is flat and its graph reads its states and guards", () => {
    const graph = machineGraph(lockMachine);
    expect(graph.states).toEqual(["free", "held"]);
    expect(graph.initial).toBe("free");
    expect(graph.transitions.filter((t) => t.source === "held" && t.event === "lock.acquire").map((t) => t.guard)).toEqual([
      "!leaseExpired",
      null,
    ]);
  });
});

describe("lockMachine started on its own", () => {
  it("as the visualizer starts it: free, holding the lock it was given, no event and no refusal before a command", () => {
    const actor = createActor(lockMachine, { input: newLock("bulk-redrive") }).start();
    const snapshot = actor.getSnapshot();
    actor.stop();
    expect(snapshot.value).toBe("free");
    expect(snapshot.context).toEqual({ lock: newLock("bulk-redrive"), emitted: [], refusal: null });
  });
});
