// The order-lifecycle service driven over HTTP, on each engine: a real server on 127.0.0.1 over a
// real store, every rule checked through the API and against what the store holds.
import { readFileSync } from "node:fs";
import { machineGraph, machineMermaid } from "@verq/core";
import { declareStream, openStore, type VerqStore } from "@verq/store";
import { createTestDatabase, engineAvailable, ENGINES, holdWriteLock, type TestDatabase } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOrderLifecycleService, type OrderLifecycleService } from "../src/order-service.ts";
import { newOrder, orderMachine } from "../src/order.machine.ts";
import { orderStream } from "../src/order.stream.ts";
import { eventTypes, orderApi, type Decided, type ErrorBody, type OrderApi } from "./support/order-api.ts";
import { startServiceProcess } from "./support/service-process.ts";

const place = (amountCents = 1299) => ({ type: "place", customer: "c-1", amountCents });
const pay = (amountCents = 1299) => ({ type: "pay", paymentId: "pay-1", amountCents });
const pick = (picker: string) => ({ type: "pick", picker });
const ship = (token: number) => ({ type: "ship", token, carrier: "dhl" });

/**
 * A second store on `database` that gives up on a held write lock soon: SQLite waits 200 ms in
 * all; PostgreSQL's lock_timeout fails each try after 100 ms, and the store's retries run out.
 */
async function openImpatientStore(database: TestDatabase): Promise<VerqStore> {
  if (database.engine === "sqlite") return database.open({ busyTimeoutMs: 200 });
  const url = new URL(database.db);
  url.searchParams.set("options", `${url.searchParams.get("options") ?? ""} -c lock_timeout=100`.trim());
  return openStore(url.toString());
}

describe("the README", () => {
  it("draws the machine as machineMermaid draws it", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const drawn = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(drawn).toBe(machineMermaid(machineGraph(orderMachine)));
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] order lifecycle over HTTP`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let service: OrderLifecycleService;
    let api: OrderApi;

    beforeAll(async () => {
      database = await createTestDatabase(engine, "order-lifecycle.sqlite");
      store = await database.open();
      service = await createOrderLifecycleService({ store });
      api = orderApi(service.url);
    });
    afterAll(async () => {
      await service?.close();
      await store?.close();
      await database?.dispose();
    });

    /** Every event in the store, the counts by state, and one order's events: what "nothing written" compares. */
    const snapshot = async (id: string) => ({
      events: await store.countEvents(),
      counts: await api.counts(),
      order: await api.events(id),
    });
    /** The projection agrees with the fold of the log for every order. */
    const expectSound = async () => expect(await declareStream(store, orderStream).check()).toEqual([]);

    it("walks an order placed, paid, picked, shipped and refunded; each step answers the order and its events", async () => {
      expect(await api.send("o-walk", place())).toMatchObject({
        status: 200,
        body: { accepted: true, order: { id: "o-walk", state: "placed", version: 1, customer: "c-1", amountCents: 1299 } },
      });
      const paid = await api.send("o-walk", pay());
      expect(paid.body).toMatchObject({
        accepted: true,
        order: { state: "paid", version: 2, paidCents: 1299 },
        events: ["order.paid"],
      });
      expect(await api.accept("o-walk", pick("picker-a"))).toMatchObject({ state: "picking", picker: "picker-a", token: 1 });
      expect(await api.accept("o-walk", ship(1))).toMatchObject({ state: "shipped", carrier: "dhl", picker: null, version: 4 });
      const refunded = await api.send("o-walk", { type: "refund", reason: "damaged" });
      expect(refunded.body).toMatchObject({ accepted: true, order: { state: "refunded", refundedCents: 1299, version: 5 } });

      const order = await api.order("o-walk");
      expect(order).toMatchObject({ status: 200, body: { id: "o-walk", state: "refunded", version: 5, token: 1 } });
      const events = (await api.events("o-walk")).body.events;
      expect(events.map((e) => [e.version, e.type, e.schemaVersion])).toEqual([
        [1, "order.placed", 1],
        [2, "order.paid", 1],
        [3, "order.picked", 1],
        [4, "order.shipped", 1],
        [5, "order.refunded", 1],
      ]);
      expect(events[4]?.data).toMatchObject({ amountCents: 1299, reason: "damaged" });
      for (const event of events) expect(event.at).toBe(event.data.at);
      // A refunded order takes nothing more.
      expect((await api.send("o-walk", pick("picker-b"))).body).toMatchObject({
        accepted: false,
        refusal: "unhandled",
        command: "pick",
      });
      await expectSound();
    });

    it("cancels a paid order: two events, cancelled then refunded, in one answer", async () => {
      await api.accept("o-cancel", place(500));
      await api.accept("o-cancel", pay(500));
      const cancelled = await api.send("o-cancel", { type: "cancel", reason: "changed mind" });
      expect(cancelled.body).toMatchObject({
        accepted: true,
        order: { state: "refunded", version: 4, refundedCents: 500 },
        events: ["order.cancelled", "order.refunded"],
      });
      expect(await eventTypes(api, "o-cancel")).toEqual(["order.placed", "order.paid", "order.cancelled", "order.refunded"]);
      // A placed order is only cancelled: nothing was paid, nothing is refunded.
      await api.accept("o-cancel-placed", place());
      expect(await api.accept("o-cancel-placed", { type: "cancel", reason: "late" })).toMatchObject({
        state: "cancelled",
        version: 2,
      });
    });

    it("refuses a stale picker's ship after another picker took over (409 stale-token), and writes nothing", async () => {
      await api.accept("o-stale", place());
      await api.accept("o-stale", pay());
      expect((await api.accept("o-stale", pick("picker-slow"))).token).toBe(1);
      expect((await api.accept("o-stale", pick("picker-new"))).token).toBe(2);
      const before = await snapshot("o-stale");
      const stale = await api.send("o-stale", ship(1));
      expect(stale).toMatchObject({
        status: 409,
        body: {
          accepted: false,
          refusal: "stale-token",
          command: "ship",
          order: { state: "picking", token: 2, picker: "picker-new", version: 4 },
        },
      });
      expect(await snapshot("o-stale")).toEqual(before);
      expect(await api.accept("o-stale", ship(2))).toMatchObject({ state: "shipped", version: 5 });
    });

    it("refuses a payment of the wrong amount (409 wrong-amount) and keeps the order as it was", async () => {
      await api.accept("o-amount", place(1299));
      const before = await snapshot("o-amount");
      const wrong = await api.send("o-amount", pay(1000));
      expect(wrong.status).toBe(409);
      expect(wrong.body).toMatchObject({
        accepted: false,
        refusal: "wrong-amount",
        command: "pay",
        order: { state: "placed", version: 1 },
      });
      expect(await snapshot("o-amount")).toEqual(before);
      expect((await api.send("o-amount", place(0))).body).toMatchObject({
        accepted: false,
        refusal: "unhandled",
        command: "place",
      });
    });

    it("decides an array of commands all or none: a refused second command writes nothing of the first", async () => {
      const before = await snapshot("o-batch");
      const refused = await api.send("o-batch", [place(1299), pay(1)]);
      expect(refused).toEqual({
        status: 409,
        body: {
          accepted: false,
          refusal: "wrong-amount",
          command: "pay",
          order: { id: "o-batch", version: 0, ...newOrder() },
        },
      });
      expect(await snapshot("o-batch")).toEqual(before);
      expect((await api.order("o-batch")).status).toBe(404);

      const accepted = await api.send("o-batch", [place(1299), pay(1299), pick("picker-a")]);
      expect(accepted.body).toMatchObject({
        accepted: true,
        order: { state: "picking", version: 3, token: 1 },
        events: ["order.placed", "order.paid", "order.picked"],
      });
      // On an order with events: the refusal is decided from its state and leaves it there.
      const again = await api.send("o-batch", [pick("picker-b"), ship(1)]);
      expect(again.body).toMatchObject({
        accepted: false,
        refusal: "stale-token",
        command: "ship",
        order: { version: 3, token: 1 },
      });
      expect(await eventTypes(api, "o-batch")).toEqual(["order.placed", "order.paid", "order.picked"]);
    });

    it("answers each bad input with its code and changes nothing", async () => {
      await api.accept("o-bad", place());
      const before = await snapshot("o-bad");
      const post = (body: unknown, contentType?: string, id = "o-bad") =>
        api.request<ErrorBody>("POST", `/orders/${id}/commands`, body, contentType);
      const answers = {
        unknownType: await post({ type: "teleport" }),
        noType: await post({ amountCents: 1299 }),
        unknownInArray: await post([pay(), { type: "teleport" }]),
        missingField: await post({ type: "pay", amountCents: 1299 }),
        mistypedField: await post({ type: "pay", paymentId: 7, amountCents: 1299 }),
        extraField: await post({ ...pay(), note: "extra" }),
        nonFinite: await post('{"type":"pay","paymentId":"pay-1","amountCents":1e400}'),
        notJson: await post('{"type":'),
        emptyBody: await post(""),
        number: await post(42),
        string: await post('"pay"'),
        null: await post("null"),
        nonObjectInArray: await post([pay(), 7]),
        emptyArray: await post([]),
        tooManyCommands: await post(Array.from({ length: 101 }, () => pick("p"))),
        textPlain: await post(JSON.stringify(pay()), "text/plain"),
        form: await post("type=pay", "application/x-www-form-urlencoded"),
        tooLarge: await post({ ...pay(), paymentId: "x".repeat(70_000) }),
        controlCharId: await post(pay(), undefined, "o-%07bad"),
        longId: await post(place(), undefined, "o".repeat(257)),
        getControlCharId: await api.request<ErrorBody>("GET", "/orders/o-%07bad"),
        listLimitZero: await api.request<ErrorBody>("GET", "/orders?limit=0"),
        listLimitWord: await api.request<ErrorBody>("GET", "/orders?limit=ten"),
        listLimitLarge: await api.request<ErrorBody>("GET", "/orders?limit=1001"),
        listUnknownState: await api.request<ErrorBody>("GET", "/orders?state=lost"),
        listTwoStates: await api.request<ErrorBody>("GET", "/orders?state=paid&state=new"),
        listUnknownKey: await api.request<ErrorBody>("GET", "/orders?color=red"),
        missingOrder: await api.request<ErrorBody>("GET", "/orders/o-never"),
        missingEvents: await api.request<ErrorBody>("GET", "/orders/o-never/events"),
        noRoute: await api.request<ErrorBody>("GET", "/nowhere"),
      };
      const codes = Object.fromEntries(Object.entries(answers).map(([name, a]) => [name, [a.status, a.body.error.code]]));
      expect(codes).toEqual({
        unknownType: [400, "VERQ_UNKNOWN_COMMAND"],
        noType: [400, "VERQ_UNKNOWN_COMMAND"],
        unknownInArray: [400, "VERQ_UNKNOWN_COMMAND"],
        missingField: [400, "VERQ_INVALID_PAYLOAD"],
        mistypedField: [400, "VERQ_INVALID_PAYLOAD"],
        extraField: [400, "VERQ_INVALID_PAYLOAD"],
        nonFinite: [400, "VERQ_INVALID_PAYLOAD"],
        notJson: [400, "VERQ_INVALID_BODY"],
        emptyBody: [400, "VERQ_INVALID_BODY"],
        number: [400, "VERQ_INVALID_BODY"],
        string: [400, "VERQ_INVALID_BODY"],
        null: [400, "VERQ_INVALID_BODY"],
        nonObjectInArray: [400, "VERQ_INVALID_BODY"],
        emptyArray: [400, "VERQ_INVALID_ARGUMENT"],
        tooManyCommands: [400, "VERQ_INVALID_ARGUMENT"],
        textPlain: [415, "VERQ_UNSUPPORTED_MEDIA_TYPE"],
        form: [415, "VERQ_UNSUPPORTED_MEDIA_TYPE"],
        tooLarge: [413, "VERQ_BODY_TOO_LARGE"],
        controlCharId: [400, "VERQ_INVALID_ID"],
        longId: [400, "VERQ_INVALID_ID"],
        getControlCharId: [400, "VERQ_INVALID_ID"],
        listLimitZero: [400, "VERQ_INVALID_ARGUMENT"],
        listLimitWord: [400, "VERQ_INVALID_ARGUMENT"],
        listLimitLarge: [400, "VERQ_INVALID_ARGUMENT"],
        listUnknownState: [400, "VERQ_INVALID_ARGUMENT"],
        listTwoStates: [400, "VERQ_INVALID_ARGUMENT"],
        listUnknownKey: [400, "VERQ_INVALID_ARGUMENT"],
        missingOrder: [404, "ORDERS_NOT_FOUND"],
        missingEvents: [404, "ORDERS_NOT_FOUND"],
        noRoute: [404, "VERQ_NOT_FOUND"],
      });
      // No answer repeats what was sent.
      for (const answer of Object.values(answers)) expect(answer.body.error.message).not.toMatch(/teleport|extra|xxxx|o-never/);
      expect(await snapshot("o-bad")).toEqual(before);
      expect(await api.accept("o-bad", pay())).toMatchObject({ state: "paid", version: 2 });
    });

    it("lists orders by state, page by page, and counts every state", async () => {
      const paid = (
        await api.request<{ orders: { id: string; state: string }[]; next: string | null }>("GET", "/orders?state=paid")
      ).body;
      expect(paid.orders.map((o) => o.id)).toEqual(["o-bad"]);
      expect(paid.next).toBeNull();
      const all: string[] = [];
      for (let after = ""; ;) {
        const page = await api.request<{ orders: { id: string }[]; next: string | null }>(
          "GET",
          `/orders?after=${after}&limit=2`,
        );
        all.push(...page.body.orders.map((o) => o.id));
        if (page.body.next === null) break;
        after = page.body.next;
      }
      expect(all).toEqual([...all].sort());
      expect(all).toEqual(["o-amount", "o-bad", "o-batch", "o-cancel", "o-cancel-placed", "o-stale", "o-walk"]);
      expect(await api.counts()).toEqual({ new: 0, placed: 1, paid: 1, picking: 1, shipped: 1, cancelled: 1, refunded: 2 });
    });

    it("decides 10 concurrent picks of one order one after another: tokens 1 to 10 once each, versions without gaps", async () => {
      await api.accept("o-race", place());
      await api.accept("o-race", pay());
      const pickers = Array.from({ length: 10 }, (_, i) => `picker-${i}`);
      const answers = await Promise.all(pickers.map((picker) => api.send("o-race", pick(picker))));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      const orders = answers.map((a) => (a.body as Extract<Decided, { accepted: true }>).order);
      expect(orders.map((o) => o.token).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(orders.map((o) => o.version).sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      // Each answer's token is its event's place in the stream: version 3 holds token 1.
      for (const order of orders) expect(order.version - order.token).toBe(2);

      const events = (await api.events("o-race")).body.events;
      expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      const picks = events.filter((e) => e.type === "order.picked").map((e) => e.data);
      expect(picks.map((d) => d.token)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(picks.map((d) => d.picker))).toEqual(new Set(pickers));
      const last = picks.at(-1);
      expect((await api.order("o-race")).body).toMatchObject({ state: "picking", version: 12, token: 10, picker: last?.picker });
      // Only the last picker's token ships it.
      expect((await api.send("o-race", ship(9))).body).toMatchObject({ accepted: false, refusal: "stale-token" });
      expect(await api.accept("o-race", ship(10))).toMatchObject({ state: "shipped", version: 13 });
      await expectSound();
    });

    it("answers 503 VERQ_STORE_BUSY while another connection holds the write lock, and writes nothing", async () => {
      const busyStore = await openImpatientStore(database);
      const busy = await createOrderLifecycleService({ store: busyStore });
      const release = await holdWriteLock(database);
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const refused = await orderApi(busy.url).request<ErrorBody>("POST", "/orders/o-busy/commands", place());
        expect([refused.status, refused.body.error.code]).toEqual([503, "VERQ_STORE_BUSY"]);
        // Reads go on while the lock is held.
        expect((await orderApi(busy.url).order("o-walk")).status).toBe(200);
        // The failure is logged by its route and code: neither the id nor the command.
        expect(logged.mock.calls).toEqual([
          [
            JSON.stringify({
              event: "request-failed",
              method: "POST",
              route: "/orders/:id/commands",
              code: "VERQ_STORE_BUSY",
              name: "VerqError",
            }),
          ],
        ]);
      } finally {
        logged.mockRestore();
        await release();
        await busy.close();
        await busyStore.close();
      }
      expect((await api.order("o-busy")).status).toBe(404);
    });

    it("runs as a process: `src/main.ts` prints its listening line, serves the same store, and stops on SIGTERM", async () => {
      const child = await startServiceProcess(database.db);
      try {
        expect(child.lines[0]).toMatchObject({ event: "listening", url: child.url });
        expect(JSON.stringify(child.lines[0])).not.toContain("postgres://");
        const remote = orderApi(child.url);
        expect((await remote.order("o-walk")).body).toMatchObject({ state: "refunded", version: 5 });
        expect(await remote.accept("o-process", place(700))).toMatchObject({ state: "placed", version: 1 });
        expect((await api.order("o-process")).body).toMatchObject({ state: "placed", amountCents: 700 });
      } finally {
        expect(await child.stop("SIGTERM")).toBe(0);
      }
      expect(child.lines.at(-1)).toEqual({ event: "stopped", signal: "SIGTERM" });
      // Nothing of a request was logged.
      expect(child.stderr()).toBe("");
    });

    it("keeps every order across a restart: the service and the store closed, then opened again on the same database", async () => {
      const list = async () => (await api.request<{ orders: unknown[] }>("GET", "/orders?limit=1000")).body.orders;
      const ids = ["o-walk", "o-cancel", "o-stale", "o-amount", "o-batch", "o-bad", "o-race", "o-process"];
      const history = async () => Promise.all(ids.map(async (id) => (await api.events(id)).body));
      const before = { orders: await list(), counts: await api.counts(), history: await history() };
      expect(before.orders).toHaveLength(9);

      await service.close();
      await store.close();
      store = await database.open();
      service = await createOrderLifecycleService({ store });
      api = orderApi(service.url);

      expect({ orders: await list(), counts: await api.counts(), history: await history() }).toEqual(before);
      await expectSound();
      // The restarted service decides from where each order was.
      expect((await api.send("o-stale", ship(1))).body).toMatchObject({ accepted: false, refusal: "unhandled", command: "ship" });
      expect(await api.accept("o-amount", pay(1299))).toMatchObject({ state: "paid", version: 2 });
    });
  });
}
