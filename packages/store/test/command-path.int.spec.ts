import {
  LOCK_STREAM,
  VersionConflict,
  VerqError,
  decideLock,
  lockCommands,
  newLock,
  type LockCommand,
  type LockEvent,
  type OperatorLock,
} from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { readAllEvents, type VerqStore } from "../src/index.ts";
import {
  VERSION_CONFLICT_TRIES,
  commitChanges,
  decideCandidates,
  decideMany,
  handle,
  handleMany,
  handleWithRetry,
  retryOnVersionConflict,
  type CommandStore,
  type StreamChange,
  type StreamCommands,
  type StreamProjection,
} from "../src/command-path.ts";
import { insertEventRows } from "../src/sql/events/insertEventRows.ts";
import type { VerqDatabase } from "../src/schema.ts";
import { lockStream } from "../src/streams/lock-stream.ts";
import { freshStores } from "./helpers/fresh-store.ts";

// The command path on the operator-lock stream: its machine is the smallest, and its projection
// is the event log alone, so what is checked here is the path itself.
const T0 = 1_700_000_000_000;
const LEASE = 10_000;
const acquire = (owner: string, now = T0): LockCommand => lockCommands.acquire({ owner, leaseMs: LEASE, now });
const release = (token: number, now = T0): LockCommand => lockCommands.release({ token, now });
const initial = (name: string) => newLock(name);

const eventsOf = async (store: VerqStore) =>
  (await readAllEvents(store.db, LOCK_STREAM)).map((e) => ({ id: e.streamId, v: e.version, type: e.type }));

/** handleMany on the lock stream, each item's stream new when it has no events yet. */
const handleLocks = (trx: Kysely<VerqDatabase>, store: VerqStore, items: readonly StreamCommands<LockCommand, OperatorLock>[]) =>
  handleMany(trx, store.dialect, lockStream, decideLock, items, initial);

/** The change of one accepted decision against `before`. */
function changeOf(before: OperatorLock, ...commands: LockCommand[]): StreamChange<OperatorLock, LockEvent> {
  const decision = decideLock(before, ...commands);
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return { before, after: decision.after, events: decision.events };
}

describe("decideMany: items decided in input order, two items of one stream chained", () => {
  it("chains a second item of a stream on the first's state, leaves a refused item out of the changes and of the states", () => {
    const current = new Map<string, OperatorLock>();
    const { decided, changes } = decideMany(
      current,
      decideLock,
      [
        { id: "a", commands: [acquire("ops-a")] },
        { id: "a", commands: [acquire("ops-b")] },
        { id: "b", commands: [release(1)] },
        { id: "a", commands: (lock: OperatorLock) => [release(lock.token)] },
      ],
      initial,
    );
    expect(decided.map((d) => d.decision.accepted)).toEqual([true, false, false, true]);
    expect(decided.map((d) => [d.before.name, d.before.version])).toEqual([
      ["a", 0],
      ["a", 1],
      ["b", 0],
      ["a", 1],
    ]);
    expect(changes.map((c) => [c.before.name, c.before.version, c.after.version, c.events.length])).toEqual([
      ["a", 0, 1, 1],
      ["a", 1, 2, 1],
    ]);
    expect(current.get("a")).toMatchObject({ state: "free", version: 2 });
    expect(current.has("b")).toBe(false);
  });

  it("decides from the loaded state when there is one, and throws for a stream with neither a state nor an initial one", () => {
    const held = changeOf(newLock("a"), acquire("ops-a")).after;
    const current = new Map([["a", held]]);
    const { decided } = decideMany(current, decideLock, [{ id: "a", commands: [acquire("ops-b")] }], initial);
    expect(decided[0]?.before).toBe(held);
    expect(decided[0]?.decision.accepted).toBe(false);
    expect(() => decideMany(new Map(), decideLock, [{ id: "ghost", commands: [acquire("ops-a")] }], () => undefined)).toThrow(
      "no stream ghost and no initial state for it",
    );
  });
});

describe("decideCandidates: each candidate against its own state, the accepted ones kept, up to a max or a refusal that ends the scan", () => {
  const held = (name: string, owner: string) => changeOf(newLock(name), acquire(owner)).after;

  it("keeps the accepted candidates as changes and lists the refused ones with their refusal, in candidate order", () => {
    const candidates = [newLock("a"), held("b", "ops-b"), newLock("c")];
    const seen: string[] = [];
    const result = decideCandidates(decideLock, candidates, (lock) => {
      seen.push(lock.name);
      return [acquire(`ops-${lock.name}`)];
    });
    expect(seen).toEqual(["a", "b", "c"]);
    expect(result.changes.map((c) => [c.before.name, c.after.owner, c.events.map((e) => e.type)])).toEqual([
      ["a", "ops-a", ["lock.acquired"]],
      ["c", "ops-c", ["lock.acquired"]],
    ]);
    expect(result.changes[0]?.before).toBe(candidates[0]);
    expect(result.refused).toEqual([{ state: candidates[1], refusal: "held" }]);
    expect(result.ended).toBe(false);
  });

  it("stops deciding once max candidates were accepted; refusals do not count towards it", () => {
    const candidates = [held("a", "ops-a"), newLock("b"), newLock("c"), newLock("d")];
    const seen: string[] = [];
    const result = decideCandidates(
      decideLock,
      candidates,
      (lock) => {
        seen.push(lock.name);
        return [acquire("ops-x")];
      },
      { max: 2 },
    );
    expect(result.changes.map((c) => c.before.name)).toEqual(["b", "c"]);
    expect(result.refused.map((r) => r.state.name)).toEqual(["a"]);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(decideCandidates(decideLock, candidates, () => [acquire("ops-x")], { max: 0 }).changes).toEqual([]);
  });

  it("ends the scan at the first refusal endsScan names: that candidate and the later ones are neither kept nor listed", () => {
    const candidates = [newLock("a"), held("b", "ops-b"), newLock("c")];
    const asked: string[] = [];
    const result = decideCandidates(decideLock, candidates, () => [acquire("ops-x")], {
      endsScan: (refusal) => {
        asked.push(refusal);
        return refusal === "held";
      },
    });
    expect(result.changes.map((c) => c.before.name)).toEqual(["a"]);
    expect(result.refused).toEqual([]);
    expect(result.ended).toBe(true);
    expect(asked).toEqual(["held"]);
    const goesOn = decideCandidates(decideLock, candidates, () => [acquire("ops-x")], { endsScan: () => false });
    expect(goesOn.changes.map((c) => c.before.name)).toEqual(["a", "c"]);
    expect(goesOn.refused.map((r) => r.refusal)).toEqual(["held"]);
    expect(goesOn.ended).toBe(false);
  });
});

describe("retryOnVersionConflict: one policy for a command another writer beat to its stream", () => {
  it("tries 5 times in all: why is documented with the constant", () => {
    expect(VERSION_CONFLICT_TRIES).toBe(5);
  });

  it("runs the work again after each VERQ_VERSION_CONFLICT and answers the first try that commits", async () => {
    let tries = 0;
    const answer = await retryOnVersionConflict(() => {
      tries++;
      if (tries < VERSION_CONFLICT_TRIES) return Promise.reject(new VersionConflict("operator", "a", tries));
      return Promise.resolve("written");
    });
    expect(answer).toBe("written");
    expect(tries).toBe(VERSION_CONFLICT_TRIES);
  });

  it("throws the conflict of the last try, after exactly VERSION_CONFLICT_TRIES tries", async () => {
    let tries = 0;
    const error = await retryOnVersionConflict(() => {
      tries++;
      return Promise.reject(new VersionConflict("operator", "a", tries));
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VERQ_VERSION_CONFLICT" });
    expect((error as Error).message).toContain("version 5;");
    expect(tries).toBe(VERSION_CONFLICT_TRIES);
  });

  it("throws any other error at once, a verq error of another code included", async () => {
    for (const thrown of [new VerqError("VERQ_STORE_BUSY", "busy"), new Error("disk")]) {
      let tries = 0;
      const error = await retryOnVersionConflict(() => {
        tries++;
        return Promise.reject(thrown);
      }).catch((e: unknown) => e);
      expect(error).toBe(thrown);
      expect(tries).toBe(1);
    }
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the command path`, () => {
    const stores = freshStores();

    it("commitChanges appends each change's events at the versions after its before, and writes nothing for no change", async () => {
      const { store } = await stores.open(engine);
      const first = changeOf(newLock("a"), acquire("ops-a"), release(1));
      const second = changeOf(first.after, acquire("ops-b"));
      const written = await store.db
        .transaction()
        .execute((trx) =>
          commitChanges(trx, store.dialect, lockStream, [first, second, changeOf(newLock("b"), acquire("ops-c"))]),
        );
      expect(written).toHaveLength(3);
      expect(await eventsOf(store)).toEqual([
        { id: "a", v: 1, type: "lock.acquired" },
        { id: "a", v: 2, type: "lock.released" },
        { id: "a", v: 3, type: "lock.acquired" },
        { id: "b", v: 1, type: "lock.acquired" },
      ]);
      expect(await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, lockStream, []))).toEqual([]);
    });

    it("commitChanges leaves the append and the projection to a projection that writes both at once, and does both itself when it declines", async () => {
      const { store } = await stores.open(engine);
      const given: string[][] = [];
      let projected = 0;
      // The lock stream, with a write of both at once that either appends the events itself or declines.
      const both = (writes: boolean): StreamProjection<OperatorLock, LockEvent> => ({
        ...lockStream,
        project: () => {
          projected++;
          return Promise.resolve();
        },
        async appendAndProject(trx, _changes, events) {
          given.push(events.map((e) => `${e.streamId}@${e.version} ${e.type}`));
          if (writes) await insertEventRows(trx, store.dialect, LOCK_STREAM, events, "fail");
          return writes;
        },
      });
      const first = changeOf(newLock("a"), acquire("ops-a"), release(1));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, both(true), [first]));
      expect(given).toEqual([["a@1 lock.acquired", "a@2 lock.released"]]);
      expect(projected).toBe(0);
      const second = changeOf(first.after, acquire("ops-b"));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, both(false), [second]));
      expect(given[1]).toEqual(["a@3 lock.acquired"]);
      expect(projected).toBe(1);
      // Each event once: neither write appended what the other did.
      expect(await eventsOf(store)).toEqual([
        { id: "a", v: 1, type: "lock.acquired" },
        { id: "a", v: 2, type: "lock.released" },
        { id: "a", v: 3, type: "lock.acquired" },
      ]);
    });

    it("with creations skipped, a stream another writer created first is left out with its later changes; the rest is written", async () => {
      const { store } = await stores.open(engine);
      const winner = changeOf(newLock("a"), acquire("ops-a"));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, lockStream, [winner]));
      const lostCreation = changeOf(newLock("a"), acquire("ops-b"));
      const lostLater = changeOf(lostCreation.after, release(1));
      const created = changeOf(newLock("b"), acquire("ops-c"));
      const createdLater = changeOf(created.after, release(1));
      const written = await store.db
        .transaction()
        .execute((trx) =>
          commitChanges(trx, store.dialect, lockStream, [lostCreation, created, lostLater, createdLater], { creations: "skip" }),
        );
      expect(written).toEqual([created, createdLater]);
      expect(await eventsOf(store)).toEqual([
        { id: "a", v: 1, type: "lock.acquired" },
        { id: "b", v: 1, type: "lock.acquired" },
        { id: "b", v: 2, type: "lock.released" },
      ]);
      expect((await readAllEvents(store.db, LOCK_STREAM)).find((e) => e.streamId === "a")?.data).toMatchObject({
        owner: "ops-a",
      });
    });

    it("with creations skipped and no stream lost, every change is written", async () => {
      const { store } = await stores.open(engine);
      const created = changeOf(newLock("a"), acquire("ops-a"));
      const later = changeOf(created.after, release(1));
      const written = await store.db
        .transaction()
        .execute((trx) => commitChanges(trx, store.dialect, lockStream, [created, later], { creations: "skip" }));
      expect(written).toEqual([created, later]);
      expect(await eventsOf(store)).toHaveLength(2);
    });

    it("handleMany loads, decides in order and commits the accepted items; handle answers for one stream", async () => {
      const { store } = await stores.open(engine);
      const decided = await store.db.transaction().execute((trx) =>
        handleLocks(trx, store, [
          { id: "a", commands: [acquire("ops-a")] },
          { id: "a", commands: [acquire("ops-b")] },
        ]),
      );
      expect(decided.map((d) => d.decision.accepted)).toEqual([true, false]);
      // Each item answers with the state it was decided against: the second, the first's.
      expect(decided.map((d) => [d.before.version, d.before.owner])).toEqual([
        [0, null],
        [1, "ops-a"],
      ]);
      const again = await store.db
        .transaction()
        .execute((trx) => handle(trx, store.dialect, lockStream, decideLock, "a", initial, release(1)));
      expect(again.before).toMatchObject({ state: "held", version: 1 });
      expect(again.decision).toMatchObject({ accepted: true, after: { state: "free", version: 2 } });
      expect(await eventsOf(store)).toEqual([
        { id: "a", v: 1, type: "lock.acquired" },
        { id: "a", v: 2, type: "lock.released" },
      ]);
    });

    it("handleWithRetry decides in a transaction of its own, again from a fresh load after each version conflict", async () => {
      const { store } = await stores.open(engine);
      let transactions = 0;
      let built = 0;
      // A rival writer takes the lock between this writer's first two loads and its appends.
      const racing: CommandStore = {
        dialect: store.dialect,
        transaction: (work) =>
          store.transaction(async (trx) => {
            transactions++;
            const result = await work(trx);
            if (transactions <= 2) throw new VersionConflict("operator", "a", transactions);
            return result;
          }),
      };
      const item = {
        id: "a",
        commands: (lock: OperatorLock) => {
          built++;
          return [acquire(`ops-${lock.version}`)];
        },
      };
      const { before, decision } = await handleWithRetry(racing, lockStream, decideLock, item, initial);
      expect(transactions).toBe(3);
      expect(built).toBe(3);
      expect(before).toMatchObject({ name: "a", version: 0 });
      expect(decision).toMatchObject({ accepted: true, after: { owner: "ops-0", version: 1 } });
      expect(await eventsOf(store)).toEqual([{ id: "a", v: 1, type: "lock.acquired" }]);
      const refused = await handleWithRetry(store, lockStream, decideLock, { id: "a", commands: [acquire("ops-b")] }, initial);
      expect(refused.before).toMatchObject({ owner: "ops-0", version: 1 });
      expect(refused.decision).toMatchObject({ accepted: false, refusal: "held" });
    });

    it("handleMany decides the streams it is given from those states, loads only the others, and fails an append a given state is behind", async () => {
      const { store } = await stores.open(engine);
      const loads: string[][] = [];
      const counted = {
        ...lockStream,
        load: (trx: Kysely<VerqDatabase>, ids: readonly string[]) => (loads.push([...ids]), lockStream.load(trx, ids)),
      };
      const a = changeOf(newLock("a"), acquire("ops-a"));
      const b = changeOf(newLock("b"), acquire("ops-b"));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, lockStream, [a, b]));
      const run = (items: readonly StreamCommands<LockCommand, OperatorLock>[], known: ReadonlyMap<string, OperatorLock>) =>
        store.db.transaction().execute((trx) => handleMany(trx, store.dialect, counted, decideLock, items, initial, known));
      const decided = await run(
        [
          { id: "a", commands: [release(1)] },
          { id: "b", commands: [release(1)] },
          { id: "c", commands: [acquire("ops-c")] },
        ],
        new Map([["a", a.after]]),
      );
      expect(loads).toEqual([["b", "c"]]);
      expect(decided.map((d) => [d.before.name, d.before.version, d.decision.accepted])).toEqual([
        ["a", 1, true],
        ["b", 1, true],
        ["c", 0, true],
      ]);
      const released = decided[0]!.decision.accepted ? decided[0]!.decision.after : a.after;
      // Every stream given: nothing is loaded.
      await run([{ id: "a", commands: [acquire("ops-d")] }], new Map([["a", released]]));
      expect(loads).toEqual([["b", "c"]]);
      // A given state one version behind the log: its append is refused, nothing of it written.
      const before = await eventsOf(store);
      await expect(run([{ id: "a", commands: [acquire("ops-e")] }], new Map([["a", released]]))).rejects.toBeInstanceOf(
        VersionConflict,
      );
      expect(await eventsOf(store)).toEqual(before);
      expect(before.filter((e) => e.id === "a").map((e) => e.type)).toEqual(["lock.acquired", "lock.released", "lock.acquired"]);
    });

    it("handleMany answers each item with the state it was decided against, loaded or initial, chained in order", async () => {
      const { store } = await stores.open(engine);
      const held = changeOf(newLock("a"), acquire("ops-a"));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, lockStream, [held]));
      const decided = await store.db.transaction().execute((trx) =>
        handleLocks(trx, store, [
          { id: "a", commands: [acquire("ops-b")] },
          { id: "a", commands: [release(1)] },
          { id: "b", commands: [acquire("ops-c")] },
          { id: "a", commands: [acquire("ops-b")] },
        ]),
      );
      expect(decided.map((d) => [d.before.name, d.before.version, d.before.owner, d.decision.accepted])).toEqual([
        ["a", 1, "ops-a", false],
        ["a", 1, "ops-a", true],
        ["b", 0, null, true],
        ["a", 2, null, true],
      ]);
      expect(await eventsOf(store)).toEqual([
        { id: "a", v: 1, type: "lock.acquired" },
        { id: "a", v: 2, type: "lock.released" },
        { id: "b", v: 1, type: "lock.acquired" },
        { id: "a", v: 3, type: "lock.acquired" },
      ]);
    });

    it("writes each event at the schema version its projection declares, and at 1 when it declares none", async () => {
      const { store } = await stores.open(engine);
      const versioned: StreamProjection<OperatorLock, LockEvent> = {
        ...lockStream,
        schemaVersion: (type) => (type === "lock.acquired" ? 3 : 2),
      };
      const held = changeOf(newLock("a"), acquire("ops-a"), release(1));
      await store.db.transaction().execute((trx) => commitChanges(trx, store.dialect, versioned, [held]));
      await store.db
        .transaction()
        .execute((trx) => commitChanges(trx, store.dialect, lockStream, [changeOf(newLock("b"), acquire("ops-b"))]));
      const skipped = changeOf(newLock("c"), acquire("ops-c"));
      await store.db
        .transaction()
        .execute((trx) => commitChanges(trx, store.dialect, versioned, [skipped], { creations: "skip" }));
      const rows = await store.db
        .selectFrom("events")
        .select(["stream_id", "type", "schema_version"])
        .orderBy("position")
        .execute();
      expect(rows.map((r) => [r.stream_id, r.type, Number(r.schema_version)])).toEqual([
        ["a", "lock.acquired", 3],
        ["a", "lock.released", 2],
        ["b", "lock.acquired", 1],
        ["c", "lock.acquired", 3],
      ]);
      expect((await readAllEvents(store.db, LOCK_STREAM)).map((e) => e.schemaVersion)).toEqual([3, 2, 1, 3]);
    });
  });
}
