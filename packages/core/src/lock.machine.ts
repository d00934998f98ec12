import { assign, not, setup } from "xstate";
import type { LockCommand } from "./lock.commands.ts";
import { evolveLock } from "./lock.evolve.ts";
import { lockEvents, type LockEvent } from "./lock.events.ts";
import type { OperatorLock } from "./lock.types.ts";

/**
 * Why the machine refused a command. Refusals are data (the machine stays where it was and no
 * event is emitted); the store turns them into answers:
 * - acquire: `held` (another holder's lease still runs);
 * - heartbeat and release: `stale-token` (not the current holder's token), `not-held` (free),
 *   and for a heartbeat `lease-expired` (`now >= leaseUntil`: the holder must stop);
 * - `unhandled` when no transition took the command.
 */
export type LockRefusal = "held" | "stale-token" | "not-held" | "lease-expired" | "unhandled";

/** The machine's context: the lock, the events a transition emitted, and a refusal if any. */
export interface LockMachineContext {
  readonly lock: OperatorLock;
  readonly emitted: readonly LockEvent[];
  readonly refusal: LockRefusal | null;
}

const record = (context: LockMachineContext, event: LockEvent): Partial<LockMachineContext> => ({
  lock: evolveLock(context.lock, event),
  emitted: [...context.emitted, event],
});

/**
 * An operator lock (SPEC O1: one bulk redrive at a time per store): free → held by acquire,
 * held → held by heartbeat, held → free by release, and held → held by an acquire once the
 * holder's lease has run out (its `lock.expired`, then the new holder's `lock.acquired`).
 *
 * Guards carry every rule: the lease boundary (`now == leaseUntil` is expired: it belongs to the
 * next holder) and the fencing token (only the current holder extends or releases; every
 * acquisition counts the token up, never down). Two acquires racing from the same version are
 * arbitrated by the event log's UNIQUE(stream, version), not here. Facts from outside (the
 * clock) arrive in the command. Actions only assign, folding each event into `context.lock` with
 * {@link evolveLock}. No side effects: the same definition runs in the store, in tests and in the
 * Stately visualizer.
 */
export const lockMachine = setup({
  types: {
    context: {} as LockMachineContext,
    events: {} as LockCommand,
    input: {} as OperatorLock,
  },
  guards: {
    leaseExpired: ({ context, event }) => context.lock.leaseUntil !== null && event.now >= context.lock.leaseUntil,
    tokenMatches: ({ context, event }) =>
      (event.type === "lock.heartbeat" || event.type === "lock.release") && event.token === context.lock.token,
  },
  actions: {
    refuse: assign((_, params: { refusal: LockRefusal }) => ({ refusal: params.refusal })),
    acquire: assign(({ context, event }) => {
      if (event.type !== "lock.acquire") return {};
      const { owner, leaseMs, now } = event;
      return record(context, lockEvents.acquired({ owner, token: context.lock.token + 1, leaseUntil: now + leaseMs, at: now }));
    }),
    expire: assign(({ context, event }) => {
      const { owner, token, since } = context.lock;
      return record(context, lockEvents.expired({ owner: owner ?? "", token, since: since ?? 0, at: event.now }));
    }),
    extend: assign(({ context, event }) => {
      if (event.type !== "lock.heartbeat") return {};
      const { owner, token, since } = context.lock;
      return record(
        context,
        lockEvents.extended({
          owner: owner ?? "",
          token,
          since: since ?? 0,
          leaseUntil: event.now + event.leaseMs,
          at: event.now,
        }),
      );
    }),
    release: assign(({ context, event }) => {
      const { owner, token, since } = context.lock;
      return record(context, lockEvents.released({ owner: owner ?? "", token, since: since ?? 0, at: event.now }));
    }),
  },
}).createMachine({
  id: "lock",
  context: ({ input }) => ({ lock: input, emitted: [], refusal: null }),
  initial: "free",
  // Fallbacks: only a holder extends or releases.
  on: {
    "lock.heartbeat": { actions: { type: "refuse", params: { refusal: "not-held" } } },
    "lock.release": { actions: { type: "refuse", params: { refusal: "not-held" } } },
  },
  states: {
    // Never taken, or released: the first acquire takes it.
    free: {
      on: {
        "lock.acquire": { target: "held", actions: "acquire" },
      },
    },
    held: {
      on: {
        "lock.acquire": [
          { guard: not("leaseExpired"), actions: { type: "refuse", params: { refusal: "held" } } },
          // The holder crashed or stalled past its lease: recorded, then the new holder takes over.
          { target: "held", reenter: true, actions: ["expire", "acquire"] },
        ],
        "lock.heartbeat": [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { guard: "leaseExpired", actions: { type: "refuse", params: { refusal: "lease-expired" } } },
          { actions: "extend" },
        ],
        "lock.release": [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { target: "free", actions: "release" },
        ],
      },
    },
  },
});

/** The machine's type, for variants built with `lockMachine.provide(...)`. */
export type LockMachine = typeof lockMachine;
