import type fc from "fast-check";
import { GUID_STREAM, ManualClock } from "@verq/core";
import { RelayService, type CoreClient, type RelayBoundary, type RelayReply } from "@verq/adapters/relay";
import { GuidLedger, VerqStore, readAllEvents, type GuidLedgerOptions, type StoredEvent } from "@verq/store";
import type { TestDatabase } from "@verq/testing";
import { MAX_ATTEMPTS, type RelayScenario } from "./relay-scenario.ts";
import { ScheduledCore } from "./scheduled-core.ts";
import { scheduledLatency } from "./scheduled-latency.ts";

/** Thrown at a boundary where the scenario says the relay dies: nothing after it runs. */
export class RelayDied extends Error {
  constructor(boundary: RelayBoundary, guid: string) {
    super(`relay died at ${boundary} (${guid})`);
  }
}

/** The parts of the system a mutant may replace: the ledger's decider and claim, or the operator's reprocess. */
export interface RelayVariant extends Pick<GuidLedgerOptions, "decider" | "claimer"> {
  /** An operator's reprocess run in place of `relay.reprocess`, built from the relay's public pieces. */
  readonly reprocess?: (relay: RelayService, options: { maxAttempts: number }) => Promise<unknown>;
}

/** Where the relay crosses a boundary: a scheduling point, where the scenario may let it die. */
type Boundary = (name: RelayBoundary, guid: string) => Promise<void>;

/**
 * A ledger that crosses the relay's boundaries as the relay sees them: `relay.afterClaim` once a
 * claim is committed (before the entry is SENT), `relay.afterRecord` once a core outcome is
 * committed. Wrapping the public ledger the relay is given stands the scheduler and the deaths
 * exactly where the relay's failpoints are, without a seam in the relay.
 */
class BoundaryLedger extends GuidLedger {
  readonly #boundary: Boundary;

  constructor(store: VerqStore, options: GuidLedgerOptions, boundary: Boundary) {
    super(store, options);
    this.#boundary = boundary;
  }

  override async receive(input: Parameters<GuidLedger["receive"]>[0]): ReturnType<GuidLedger["receive"]> {
    const got = await super.receive(input);
    if (got.kind === "claimed") await this.#boundary("relay.afterClaim", input.guid);
    return got;
  }

  override async record(...args: Parameters<GuidLedger["record"]>): ReturnType<GuidLedger["record"]> {
    const change = await super.record(...args);
    await this.#boundary("relay.afterRecord", args[0]);
    return change;
  }
}

/** The core as the relay reaches it, crossing `relay.afterCoreCall` once a call has ended (before its outcome is recorded). */
function boundaryCore(core: CoreClient, boundary: Boundary): CoreClient {
  return {
    async transfer(guid, request) {
      const result = await core.transfer(guid, request);
      await boundary("relay.afterCoreCall", guid);
      return result;
    },
    inquire: (guid) => core.inquire(guid),
  };
}

/** What the channel got for one request: the relay's reply, or nothing (the relay died). */
export interface ChannelAnswer {
  readonly guid: string;
  readonly text: string;
  readonly reply: RelayReply | null;
}

/** One run's system under test and what was observed of it. */
export interface RelayWorld {
  readonly s: fc.Scheduler;
  readonly clock: ManualClock;
  /** The store, ledger and relay of the relay process now running (replaced by {@link restart}). */
  readonly store: VerqStore;
  readonly ledger: GuidLedger;
  readonly relay: RelayService;
  readonly core: ScheduledCore;
  readonly answers: ChannelAnswer[];
  /** When the channel first sent each GUID (it resends only within its window). */
  readonly firstSend: Map<string, number>;
  /** Every `guid` event ever seen, by GUID, in position order; kept after a purge deletes them. */
  readonly history: Map<string, StoredEvent[]>;
  /** Reads the event log and adds what is new to {@link history}. */
  observe(): Promise<void>;
  /** An operator's `verq relay reprocess` (the mutant's own, when it replaces it). */
  reprocess(options: { maxAttempts: number }): Promise<unknown>;
  /** Closes the store and opens the database again, with a new ledger and relay (G8: nothing is kept in memory). */
  restart(): Promise<void>;
  /** Closes the store; the caller disposes the database. */
  close(): Promise<void>;
}

/**
 * Builds a run's world: a real ledger on `database`, fresh for the run (every store round trip a
 * scheduling point), on a manual clock; the scheduled core; a relay whose boundaries are
 * scheduling points where it may die, as the scenario says.
 */
export async function createRelayWorld(
  database: TestDatabase,
  s: fc.Scheduler,
  scenario: RelayScenario,
  variant: RelayVariant = {},
): Promise<RelayWorld> {
  const clock = new ManualClock(1_767_258_000_000);
  const core = new ScheduledCore(s, clock, scenario.fates, scenario.inquiryFailures);
  let boundaries = 0;
  const boundary: Boundary = async (name, guid) => {
    const dies = scenario.deaths[boundaries++ % scenario.deaths.length] ?? false;
    await s.schedule(Promise.resolve(), `${name} ${guid}${dies ? ": the relay dies" : ""}`);
    if (dies) throw new RelayDied(name, guid);
  };
  const open = async () => {
    const base = await database.open();
    // Every statement a round trip through the scheduler, on both engines: without SQLite's hot
    // path, whose synchronous statements the plugin would not see (one seed, one interleaving).
    const { hotPath: _synchronous, ...statements } = base.dialect.statements;
    const roundTrips = { ...base.dialect, statements };
    const store = new VerqStore(base.db.withPlugin(scheduledLatency(s)), roundTrips, base.path);
    const options: GuidLedgerOptions = { clock, decider: variant.decider, claimer: variant.claimer };
    const ledger = new BoundaryLedger(store, options, boundary);
    const relay = new RelayService({ ledger, core: boundaryCore(core, boundary), maxAttempts: MAX_ATTEMPTS });
    return { base, store, ledger, relay };
  };
  let running = await open();
  const history = new Map<string, StoredEvent[]>();
  const seen = new Set<number>();
  return {
    s,
    clock,
    get store() {
      return running.store;
    },
    get ledger() {
      return running.ledger;
    },
    get relay() {
      return running.relay;
    },
    core,
    answers: [],
    firstSend: new Map(),
    history,
    async observe() {
      for (const event of await readAllEvents(running.base.db, GUID_STREAM)) {
        if (seen.has(event.position)) continue;
        seen.add(event.position);
        history.set(event.streamId, [...(history.get(event.streamId) ?? []), event]);
      }
    },
    reprocess(options) {
      return variant.reprocess === undefined ? running.relay.reprocess(options) : variant.reprocess(running.relay, options);
    },
    async restart() {
      await running.base.close();
      running = await open();
    },
    async close() {
      await running.base.close();
    },
  };
}
