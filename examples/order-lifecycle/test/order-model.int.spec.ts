import { defineStream, type DeclaredCommand, type DeclaredStreamState } from "@verq/core";
import {
  ENGINES,
  StreamModelFailure,
  checkStreamModel,
  describeStreamModelReport,
  engineAvailable,
  type FencingUse,
} from "@verq/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assign } from "xstate";
import { ORDER_COMMANDS, evolveOrder, newOrder, orderMachine, type Order, type OrderRefusal } from "../src/order.machine.ts";
import { orderStream } from "../src/order.stream.ts";

/** The seed of every check here, so that CI runs the same sequences each time. */
const SEED = 20_251_201;

const place = fc.record({
  type: fc.constant("place"),
  customer: fc.constantFrom("ann", "bob"),
  amountCents: fc.constantFrom(500, 1200, 0),
});
const pay = fc.record({
  type: fc.constant("pay"),
  paymentId: fc.constantFrom("p-1", "p-2"),
  amountCents: fc.constantFrom(500, 1200),
});
const pick = fc.record({ type: fc.constant("pick"), picker: fc.constantFrom("ann", "bob", "cy") });
const cancel = fc.record({ type: fc.constant("cancel"), reason: fc.constant("changed mind") });
const refund = fc.record({ type: fc.constant("refund"), reason: fc.constant("damaged") });
const ship = (token: number) =>
  fc.record({
    type: fc.constant("ship"),
    token: fc.integer({ min: Math.max(0, token - 1), max: token + 1 }),
    carrier: fc.constant("ups"),
  });

/**
 * Commands for an order in `order`'s state: mostly what its state takes next (a ship presents
 * the current token, the one before or the one after it), sometimes any command at all, so that
 * runs go deep into the lifecycle and still try every refusal.
 */
function orderCommands(order: DeclaredStreamState<Order>): fc.Arbitrary<DeclaredCommand> {
  const token = order.value.token;
  const any = fc.oneof(place, pay, pick, ship(token), cancel, refund);
  const next = {
    new: [place],
    placed: [pay, pay, cancel],
    paid: [pick, pick, cancel],
    picking: [ship(token), ship(token), pick, cancel],
    shipped: [refund],
  }[order.value.state as "new"];
  return fc.oneof({ arbitrary: any, weight: 1 }, ...(next ?? []).map((arbitrary) => ({ arbitrary, weight: 2 })));
}

/** A pick takes the order and must count the token up; a ship presents the picker's token. */
const orderFencing: FencingUse = {
  takes: ["pick"],
  presented: (command) => (command.type === "ship" ? (command.token as number) : undefined),
};

/** The order stream's declaration with another name and some parts replaced: a mutant of the example. */
function mutant(name: string, parts: { machine?: typeof orderMachine; evolve?: typeof evolveOrder }) {
  return defineStream({
    name,
    machine: parts.machine ?? orderMachine,
    field: "order",
    initial: newOrder,
    evolve: parts.evolve ?? evolveOrder,
    commands: ORDER_COMMANDS,
    unhandled: "unhandled" satisfies OrderRefusal,
    fencing: { token: (order) => order.token },
  });
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the order stream against its model`, () => {
    const numRuns = engine === "sqlite" ? 50 : 30;

    it("keeps every rule, one command (or batch) at a time", async () => {
      const report = await checkStreamModel({
        definition: orderStream,
        commands: orderCommands,
        database: engine,
        fencing: orderFencing,
        numRuns,
        seed: SEED,
        streams: 2,
        maxSteps: 20,
      });
      console.log(`[model] ${describeStreamModelReport(report)}`);
      expect(report).toMatchObject({ runs: numRuns, seed: SEED });
      expect(report.reached.picking ?? 0).toBeGreaterThan(0);
    });

    it("keeps every rule with commands raced on one order", async () => {
      const report = await checkStreamModel({
        definition: orderStream,
        commands: orderCommands,
        database: engine,
        fencing: orderFencing,
        numRuns,
        seed: SEED,
        streams: 2,
        maxSteps: 16,
        concurrent: true,
      });
      console.log(`[model] ${describeStreamModelReport(report)}`);
      expect(report.races).toBeGreaterThan(0);
      expect(report.connections).toBe(engine === "sqlite" ? 1 : 3);
    });
  });
}

describe("[sqlite] mutants of the order machine fail the check", () => {
  /** The check of `definition`, which must fail: its first line (the broken rule) is printed, its message returned. */
  const check = async (definition: ReturnType<typeof mutant>): Promise<string> => {
    const options = {
      commands: orderCommands,
      database: "sqlite",
      fencing: orderFencing,
      numRuns: 50,
      seed: SEED,
      streams: 2,
      maxSteps: 20,
    } as const;
    const error = await checkStreamModel({ definition, ...options }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamModelFailure);
    const message = (error as StreamModelFailure).message;
    console.log(`[mutant caught] ${message.split("\n").slice(0, 2).join(" | ")}`);
    return message;
  };

  it("a ship accepted whatever token it presents: a stale holder gets through", async () => {
    const machine = orderMachine.provide({ guards: { tokenMatches: () => true } });
    expect(await check(mutant("order-any-token", { machine }))).toMatch(
      /^\[fencing\] "ship" accepted .* a stale holder got through/,
    );
  });

  it("a pick that hands the order over without counting the token up: one token for two pickers", async () => {
    const machine = orderMachine.provide({
      actions: {
        pick: assign(({ context, event }) =>
          event.type === "pick"
            ? {
                order: evolveOrder(context.order, {
                  type: "order.picked",
                  data: { picker: event.picker, token: context.order.token, at: event.now },
                }),
                emitted: [
                  ...context.emitted,
                  { type: "order.picked", data: { picker: event.picker, token: context.order.token, at: event.now } },
                ],
              }
            : {},
        ),
      },
    });
    expect(await check(mutant("order-same-token", { machine }))).toMatch(
      /^\[fencing\] "pick" accepted .* is a take but handed out no new token/,
    );
  });

  it("an evolve that forgets what was paid: the projection is not the fold of the log", async () => {
    const evolve: typeof evolveOrder = (order, event) =>
      event.type === "order.paid" ? { ...evolveOrder(order, event), paidCents: 0 } : evolveOrder(order, event);
    expect(await check(mutant("order-forgets-paid", { evolve }))).toMatch(/^\[projection\] .* at value\.paidCents: \d+ ≠ 0/);
  });
});
