import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type fc from "fast-check";
import { GUID_STREAM, ManualClock, type GuidDecider } from "@verq/core";
import { GuidLedger, VerqStore, openStore, readAllEvents, type GuidClaimer, type StoredEvent } from "@verq/store";
import type { RelayBoundary } from "../../packages/adapters/src/relay/relay-context.ts";
import type { RelayReply } from "../../packages/adapters/src/relay/relay-reply.ts";
import { RelayService } from "../../packages/adapters/src/relay/relay-service.ts";
import type { ReprocessStep } from "../../packages/adapters/src/relay/reprocess-failed.ts";
import { MAX_ATTEMPTS, type RelayScenario } from "./relay-scenario.ts";
import { ScheduledCore } from "./scheduled-core.ts";
import { scheduledLatency } from "./scheduled-latency.ts";

/** Thrown at a boundary where the scenario says the relay dies: nothing after it runs. */
export class RelayDied extends Error {
  constructor(boundary: RelayBoundary, guid: string) {
    super(`relay died at ${boundary} (${guid})`);
  }
}

/** The parts of the system a mutant may replace. */
export interface RelayVariant {
  readonly decider?: GuidDecider;
  readonly claimer?: GuidClaimer;
  readonly reprocessOne?: ReprocessStep;
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
  /** Closes the database and opens the file again, with a new ledger and relay (G8: nothing is kept in memory). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds a run's world: a real ledger on a fresh SQLite file in a temp dir (every store round
 * trip a scheduling point), on a manual clock; the scheduled core; a relay whose boundaries are
 * scheduling points where it may die, as the scenario says.
 */
export async function createRelayWorld(s: fc.Scheduler, scenario: RelayScenario, variant: RelayVariant = {}): Promise<RelayWorld> {
  const dir = mkdtempSync(join(tmpdir(), "verq-relay-prop-"));
  const path = join(dir, "ledger.sqlite");
  const clock = new ManualClock(1_767_258_000_000);
  const core = new ScheduledCore(s, clock, scenario.fates, scenario.inquiryFailures);
  let boundaries = 0;
  const open = async () => {
    const base = await openStore({ path });
    const store = new VerqStore(base.db.withPlugin(scheduledLatency(s)), base.dialect, base.path);
    const ledger = new GuidLedger(store, {
      clock,
      ...(variant.decider === undefined ? {} : { decider: variant.decider }),
      ...(variant.claimer === undefined ? {} : { claimer: variant.claimer }),
    });
    const relay = new RelayService({
      ledger,
      core,
      maxAttempts: MAX_ATTEMPTS,
      internals: {
        boundary: async (name, guid) => {
          const dies = scenario.deaths[boundaries++ % scenario.deaths.length] ?? false;
          await s.schedule(Promise.resolve(), `${name} ${guid}${dies ? ": the relay dies" : ""}`);
          if (dies) throw new RelayDied(name, guid);
        },
        ...(variant.reprocessOne === undefined ? {} : { reprocessOne: variant.reprocessOne }),
      },
    });
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
    async restart() {
      await running.base.close();
      running = await open();
    },
    async close() {
      await running.base.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
