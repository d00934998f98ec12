import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  defineStream,
  type DeclaredCommand,
  type DeclaredEvent,
  type DeclaredStreamState,
  type StreamDefinition,
} from "@verq/core";
import type { DeclaredChange, OwnProjection, VerqStore } from "@verq/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ORDER_COMMANDS,
  evolveOrder,
  newOrder,
  orderMachine,
  type Order,
  type OrderRefusal,
} from "../../../examples/order-lifecycle/src/order.machine.ts";
import { orderStream } from "../../../examples/order-lifecycle/src/order.stream.ts";
import {
  ENGINES,
  StreamModelFailure,
  checkStreamModel,
  createTestDatabase,
  describeStreamModelReport,
  engineAvailable,
  expectEventShapes,
  tempDir,
  type OwnProjectionCheck,
} from "../src/index.ts";
import { checkRace, type Raced } from "../src/streams/model-serial.ts";

const SEED = 20_251_201;

/** Any order command, weighted toward the ones that move an order on (a fixed arbitrary: the commands themselves shrink). */
const orderCommands: fc.Arbitrary<DeclaredCommand> = fc.oneof(
  {
    arbitrary: fc.record({
      type: fc.constant("place"),
      customer: fc.constantFrom("ann", "bob"),
      amountCents: fc.constantFrom(500, 0),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ type: fc.constant("pay"), paymentId: fc.constant("p-1"), amountCents: fc.constantFrom(500, 1200) }),
    weight: 3,
  },
  { arbitrary: fc.record({ type: fc.constant("pick"), picker: fc.constantFrom("ann", "bob") }), weight: 3 },
  {
    arbitrary: fc.record({ type: fc.constant("ship"), token: fc.integer({ min: 0, max: 2 }), carrier: fc.constant("ups") }),
    weight: 3,
  },
  { arbitrary: fc.record({ type: fc.constant("cancel"), reason: fc.constant("changed mind") }), weight: 1 },
  { arbitrary: fc.record({ type: fc.constant("refund"), reason: fc.constant("damaged") }), weight: 1 },
);

interface OrderViewRow {
  id: string;
  state: string;
  version: number;
  value: string;
}

/** `db` (a store's, or a transaction's) with the own projection's table. */
const views = (db: unknown) => (db as VerqStore["db"]).withTables<{ order_view: OrderViewRow }>();

/** A service's own projection of orders: one row per order with its state, version and value, written as each change says. */
function orderViews(skip: (change: DeclaredChange<Order>) => boolean = () => false): OwnProjectionCheck<Order> {
  const projection: OwnProjection<Order> = {
    async write(trx, changes) {
      for (const change of changes) {
        if (skip(change)) continue;
        const { after } = change;
        await views(trx).deleteFrom("order_view").where("id", "=", after.id).execute();
        const row = { id: after.id, state: after.state, version: after.version, value: JSON.stringify(after.value) };
        await views(trx).insertInto("order_view").values(row).execute();
      }
    },
    async clear(trx) {
      await views(trx).deleteFrom("order_view").execute();
    },
  };
  return {
    projection,
    async read(db, id) {
      const row = await views(db).selectFrom("order_view").selectAll().where("id", "=", id).executeTakeFirst();
      return row === undefined
        ? null
        : { state: row.state, version: Number(row.version), value: JSON.parse(row.value) as unknown };
    },
    expected: (order: DeclaredStreamState<Order>) => ({ state: order.state, version: order.version, value: order.value }),
  };
}

const createViews = async (store: VerqStore) => {
  await store.db.schema
    .createTable("order_view")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
};

/** The order stream with another name and `decide` wrapped: a mutant of the path from the machine to the store. */
function wrapped(name: string, decide: StreamDefinition<Order, OrderRefusal>["decide"]): StreamDefinition<Order, OrderRefusal> {
  return { ...orderStream, name, decide };
}

/** The first line of a check's failure (the broken rule), printed so that a run shows what each mutant broke. */
async function failureOf(check: Promise<unknown>): Promise<StreamModelFailure> {
  const error = await check.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StreamModelFailure);
  console.log(`[mutant caught] ${(error as Error).message.split("\n").slice(0, 2).join(" | ")}`);
  return error as StreamModelFailure;
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] checkStreamModel`, () => {
    it("passes the order stream on a database of the caller's, which it leaves in place", async () => {
      const database = await createTestDatabase(engine);
      try {
        const report = await checkStreamModel({
          definition: orderStream,
          commands: orderCommands,
          database,
          numRuns: 25,
          seed: SEED,
          concurrent: true,
        });
        console.log(`[model] ${describeStreamModelReport(report)}`);
        expect(report).toMatchObject({ stream: "order", engine, seed: SEED, runs: 25 });
        expect(report.accepted + report.refused).toBe(report.commands);
        const store = await database.open();
        const events = await store.db.selectFrom("events").select("stream_id").where("stream_type", "=", "order").execute();
        await store.close();
        expect(events.length).toBe(report.events);
      } finally {
        await database.dispose();
      }
    });

    it("passes an own projection that writes every change", async () => {
      const report = await checkStreamModel({
        definition: orderStream,
        commands: orderCommands,
        database: engine,
        setup: createViews,
        projection: orderViews(),
        numRuns: 25,
        seed: SEED,
      });
      console.log(`[model] own projection: ${describeStreamModelReport(report)}`);
      expect(report.reached.paid ?? 0).toBeGreaterThan(0);
    });

    it("fails an own projection that drops the write of a payment", async () => {
      const dropsPayments = orderViews((change) => change.events.some((e) => e.type === "order.paid"));
      const failure = await failureOf(
        checkStreamModel({
          definition: orderStream,
          commands: orderCommands,
          database: engine,
          setup: createViews,
          projection: dropsPayments,
          numRuns: 25,
          seed: SEED,
        }),
      );
      expect(failure.rule).toBe("projection");
      expect(failure.message).toMatch(
        /^\[projection\] stream \S+ after .*: the own projection differs from the fold of its \d+ logged event\(s\) at state: "placed" ≠ "paid"/,
      );
      expect(failure.message).toMatch(/replay with \{ seed: 20251201, path: "[\d:]+" \}/);
    });
  });
}

describe("[sqlite] checkStreamModel fails mutants of the path from the machine to the store", () => {
  const check = (definition: StreamDefinition<Order, OrderRefusal>) =>
    checkStreamModel({ definition, commands: orderCommands, database: "sqlite", numRuns: 40, seed: SEED });

  it("a decide that appends an event beyond its state after: the projection is not the fold of the log", async () => {
    const extra = wrapped("order-extra-event", (state, now, ...commands) => {
      const decision = orderStream.decide(state, now, ...commands);
      if (!decision.accepted || decision.after.state !== "paid") return decision;
      const again: DeclaredEvent = { type: "order.placed", data: { customer: "ghost", amountCents: 1, at: now } };
      return { ...decision, events: [...decision.events, again] };
    });
    const failure = await failureOf(check(extra));
    expect(failure.message).toMatch(
      /^\[projection\] stream .*: get\(\) differs from the fold of its \d+ logged event\(s\) at state: "paid" ≠ "placed"/,
    );
  });

  it("a decide that keeps a clock of its own: the store's answer is not the model's decision", async () => {
    let calls = 0;
    const drifting = wrapped("order-own-clock", (state, now, ...commands) =>
      orderStream.decide(state, now + (calls++ % 7), ...commands),
    );
    const failure = await failureOf(check(drifting));
    expect(failure.message).toMatch(/^\[decision\] .*: the store decided \[.*\], the model \[.*\]/);
  });

  it("commands of a type the stream does not take", async () => {
    const failure = await failureOf(
      checkStreamModel({
        definition: orderStream,
        commands: fc.constant({ type: "teleport" }),
        database: "sqlite",
        numRuns: 1,
        seed: SEED,
      }),
    );
    expect(failure.message).toMatch(
      /^\[commands\] decide threw for teleport on .*: stream type "order" takes no command "teleport"/,
    );
  });

  it("refuses options it cannot keep", async () => {
    const { fencing: _fencing, ...unfenced } = orderStream;
    const plain = { ...unfenced, name: "order-unfenced", fencing: null } as StreamDefinition<Order, OrderRefusal>;
    await expect(
      checkStreamModel({ definition: plain, commands: orderCommands, database: "sqlite", fencing: { takes: ["pick"] } }),
    ).rejects.toThrow(/declares no fencing/);
    await expect(
      checkStreamModel({ definition: orderStream, commands: orderCommands, database: "sqlite", streams: 0 }),
    ).rejects.toThrow(RangeError);
  });
});

describe("the serial rule: raced commands must be explained by the log's order", () => {
  const now = 1_767_225_600_000;
  const id = "o-1";
  const placed = orderStream.decide(orderStream.initial(id), now, { type: "place", customer: "ann", amountCents: 500 });
  const paid = placed.accepted
    ? orderStream.decide(placed.after, now, { type: "pay", paymentId: "p", amountCents: 500 })
    : placed;
  if (!placed.accepted || !paid.accepted) throw new Error("the order example no longer places and pays");
  const before = { state: placed.after, events: [...placed.events] };
  const logged = (events: readonly DeclaredEvent[]) =>
    events.map((e, i) => ({ streamId: id, version: i + 1, type: e.type, data: e.data, at: e.data.at, schemaVersion: 1 }));
  const pay = { type: "pay", paymentId: "p", amountCents: 500 };
  const accepted: Raced = { command: pay, answer: { accepted: true, stream: paid.after, events: paid.events } };
  const definition = orderStream as unknown as Parameters<typeof checkRace>[0];

  it("accepts one winner and a refusal from the state it left", () => {
    const refused: Raced = {
      command: pay,
      answer: { accepted: false, refusal: "unhandled", command: "pay", stream: paid.after },
    };
    const after = checkRace(
      definition,
      undefined,
      id,
      before,
      logged([...placed.events, ...paid.events]),
      [refused, accepted],
      now,
    );
    expect(after.state).toEqual(paid.after);
  });

  it("rejects two accepted answers for one version", () => {
    const run = () =>
      checkRace(definition, undefined, id, before, logged([...placed.events, ...paid.events]), [accepted, accepted], now);
    expect(run).toThrow(/^\[serial\] pay .* was accepted at versions 2\.\.2, but in the log's order the next version is 3/);
  });

  it("rejects an accepted answer the log does not hold", () => {
    const run = () => checkRace(definition, undefined, id, before, logged(placed.events), [accepted], now);
    expect(run).toThrow(/^\[serial\] pay .* was answered with .* but the log holds \[\] at versions 2\.\.2/);
  });

  it("rejects a refusal no state of the log's order gives", () => {
    const wrong: Raced = {
      command: pay,
      answer: { accepted: false, refusal: "wrong-amount", command: "pay", stream: placed.after },
    };
    const run = () =>
      checkRace(definition, undefined, id, before, logged([...placed.events, ...paid.events]), [accepted, wrong], now);
    expect(run).toThrow(
      /^\[serial\] pay .* was refused with "wrong-amount" from version 1, but in the log's order the model accepts it there/,
    );
  });
});

describe("expectEventShapes", () => {
  const at = 1_767_225_600_000;
  const samples = {
    "order.placed": { customer: "ann", amountCents: 500, at },
    "order.paid": { paymentId: "p-1", amountCents: 500, at },
    "order.picked": { picker: "bob", token: 1, at },
    "order.shipped": { carrier: "ups", token: 1, at },
    "order.cancelled": { reason: "changed mind", at },
    "order.refunded": [
      { amountCents: 500, reason: "damaged", at },
      { amountCents: 0, reason: "changed mind", at },
    ],
  };
  /** The order stream at a new version of `order.paid`, which now carries a currency (older payments were in euros). */
  const withCurrency = defineStream({
    name: "order",
    machine: orderMachine,
    field: "order",
    initial: newOrder,
    evolve: evolveOrder,
    commands: ORDER_COMMANDS,
    unhandled: "unhandled" satisfies OrderRefusal,
    events: { "order.paid": { version: 2, upcasters: { 1: (data) => ({ ...data, currency: "EUR" }) } } },
  });

  it("writes a missing snapshot, then passes while no shape changes", async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir.path, "order-events.snapshot.json");
      expect(await expectEventShapes(orderStream, samples, file)).toMatchObject({
        written: true,
        added: Object.keys(samples).sort(),
      });
      const written = fs.readFileSync(file, "utf8");
      expect(JSON.parse(written)).toMatchObject({
        stream: "order",
        events: {
          "order.paid": { version: 1, fields: { amountCents: "number", at: "number", paymentId: "string" } },
          "order.refunded": { version: 1, fields: { amountCents: "number", at: "number", reason: "string" } },
        },
      });
      // The same events as recorded (an iterable of events) give the same shapes, and the file is left as it is.
      const recorded = Object.entries(samples).flatMap(([type, data]) =>
        (Array.isArray(data) ? data : [data]).map((d) => ({ type, data: d })),
      );
      expect(await expectEventShapes(orderStream, recorded, pathToFileURL(file))).toEqual({
        file,
        written: false,
        added: [],
        bumped: [],
      });
      expect(fs.readFileSync(file, "utf8")).toBe(written);
    } finally {
      dir.remove();
    }
  });

  it("fails a shape changed at the same version, naming the event type and the field", async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir.path, "shapes.json");
      await expectEventShapes(orderStream, samples, file);
      const changed = { ...samples, "order.paid": { paymentId: "p-1", amountCents: "5.00", currency: "EUR", at } };
      await expect(expectEventShapes(orderStream, changed, file)).rejects.toThrow(
        /event order\.paid changed its shape at version 1: field "amountCents" was number, is now string; field "currency" \(string\) is new\. .*declare version 2 .* with an upcaster from 1/,
      );
      const { "order.shipped": _gone, ...fewer } = samples;
      await expect(expectEventShapes(orderStream, fewer, file)).rejects.toThrow(/event order\.shipped has no sample/);
    } finally {
      dir.remove();
    }
  });

  it("passes a changed shape at a new version with its upcaster, and records the new shape", async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir.path, "shapes.json");
      await expectEventShapes(orderStream, samples, file);
      const current = { ...samples, "order.paid": { paymentId: "p-1", amountCents: 500, currency: "EUR", at } };
      expect(await expectEventShapes(withCurrency, current, file)).toMatchObject({
        written: true,
        added: [],
        bumped: ["order.paid"],
      });
      const recordedShapes = JSON.parse(fs.readFileSync(file, "utf8")) as { events: Record<string, unknown> };
      expect(recordedShapes.events["order.paid"]).toEqual({
        version: 2,
        fields: { amountCents: "number", at: "number", currency: "string", paymentId: "string" },
      });
      // A payment recorded at version 1 is upcast before its shape is taken: the same shape, nothing to write.
      const recorded = [{ type: "order.paid", data: samples["order.paid"], schemaVersion: 1 }];
      const others = Object.entries(samples).flatMap(([type, data]) =>
        type === "order.paid" ? [] : [{ type, data: [data].flat()[0] }],
      );
      expect(await expectEventShapes(withCurrency, [...recorded, ...others], file)).toMatchObject({ written: false });
      // Going back to the old version is refused.
      await expect(expectEventShapes(orderStream, samples, file)).rejects.toThrow(
        /event order\.paid is at version 1, below the snapshot's 2/,
      );
    } finally {
      dir.remove();
    }
  });
});
