import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobQueue, openStore } from "@verq/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderView } from "../src/order-view.ts";
import type { PaymentCounts } from "../src/payment-provider.ts";
import { requestJson, waitFor } from "./support/http.ts";
import { inspectStore } from "./support/inspect-store.ts";
import { startService, type ServiceProcess } from "./support/service-process.ts";

/**
 * The orders service embeds verq through its packages; every case runs it as a real child
 * process on 127.0.0.1 over a real SQLite file, and crashes it at exact boundaries with
 * `VERQ_FAILPOINTS`. The figures each case observed are printed so that they can be quoted.
 */
let dir: string;
const running = new Set<ServiceProcess>();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "verq-orders-"));
});
afterAll(async () => {
  for (const service of running) await service.stop("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function start(db: string, env: Record<string, string> = {}, args: readonly string[] = []): Promise<ServiceProcess> {
  const service = await startService(db, env, args);
  running.add(service);
  void service.exited.then(() => running.delete(service));
  return service;
}

const order = (id: string, amountCents = 1299) => ({ id, customer: "c-42", amountCents, currency: "EUR" });
const getOrder = (service: ServiceProcess, id: string) => requestJson<OrderView>("GET", `${service.url}/orders/${id}`);
const counts = async (service: ServiceProcess) =>
  (await requestJson<PaymentCounts>("GET", `${service.url}/payments/counts`)).body;
const chargeDone = (service: ServiceProcess, id: string) =>
  waitFor(
    () => getOrder(service, id),
    (answer) => answer.body.charge.state === "done",
  );

describe("orders service: verq embedded through its packages", () => {
  it("P2, J3: POST /orders commits the order with its charge job; the worker charges once with token 1; bad input writes nothing; SIGTERM stops cleanly", async () => {
    const db = join(dir, "happy.sqlite");
    const service = await start(db);

    const refusals = [
      await requestJson("POST", `${service.url}/orders`, { ...order("o-bad"), amountCents: -5 }),
      await requestJson("POST", `${service.url}/orders`, { ...order("o-bad"), note: "extra" }),
      await requestJson("POST", `${service.url}/orders`, { customer: "c-42", amountCents: 1, currency: "EUR" }),
      await requestJson("POST", `${service.url}/orders`, '{"id": "o-bad",'),
      await requestJson("POST", `${service.url}/orders`, "id=o-bad", "application/x-www-form-urlencoded"),
    ];
    expect(refusals.map((r) => [r.status, (r.body as { error: { code: string } }).error.code])).toEqual([
      [400, "ORDERS_INVALID_BODY"],
      [400, "ORDERS_INVALID_BODY"],
      [400, "ORDERS_INVALID_BODY"],
      [400, "ORDERS_INVALID_BODY"],
      [415, "ORDERS_UNSUPPORTED_MEDIA_TYPE"],
    ]);
    expect(await inspectStore(db, "o-bad")).toMatchObject({
      order: null,
      job: null,
      jobEvents: 0,
      charges: 0,
      totals: { orders: 0, events: 0 },
    });

    const placed = await requestJson<{ created: boolean; order: OrderView }>("POST", `${service.url}/orders`, order("o-1"));
    expect(placed.status).toBe(201);
    expect(placed.body.created).toBe(true);
    const done = await chargeDone(service, "o-1");
    expect(done.body).toMatchObject({
      id: "o-1",
      amountCents: 1299,
      charge: { jobId: "charge-o-1", state: "done", token: 1, attempts: 1, charged: true },
    });
    expect(await counts(service)).toEqual({ requests: 1, effects: 1, charges: 1 });

    // Placing the same order again (a client retrying) enqueues nothing and charges nothing.
    const again = await requestJson<{ created: boolean }>("POST", `${service.url}/orders`, order("o-1"));
    expect([again.status, again.body.created]).toEqual([200, false]);
    const conflict = await requestJson<{ error: { code: string } }>("POST", `${service.url}/orders`, order("o-1", 5));
    expect([conflict.status, conflict.body.error.code]).toEqual([409, "ORDERS_ID_CONFLICT"]);
    expect((await requestJson<{ error: { code: string } }>("GET", `${service.url}/orders/o-missing`)).body.error.code).toBe(
      "ORDERS_NOT_FOUND",
    );

    expect(await service.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    const stopped = service.events.find((e) => e.event === "stopped");
    expect(stopped).toMatchObject({ signal: "SIGTERM", worker: { claimed: 1, ok: 1, refused: 0 } });
    const after = await inspectStore(db, "o-1");
    expect(after).toMatchObject({ job: { state: "done", token: 1 }, charges: 1, receiver: { requests: 1, effects: 1 } });
    console.log(
      "[orders happy path]",
      JSON.stringify({
        startMs: service.startMs,
        refusals: refusals.length,
        token: done.body.charge.token,
        ...after.receiver,
        charges: after.charges,
      }),
    );
  });

  it("P2 rollback: an enqueue verq refuses rolls the order back; a crash inside the transaction leaves neither order nor job", async () => {
    const db = join(dir, "rollback.sqlite");
    // Another writer already enqueued a charge-o-taken job with another payload, due in an hour.
    const store = await openStore({ path: db });
    try {
      await new JobQueue(store).enqueue({
        id: "charge-o-taken",
        payload: { orderId: "elsewhere" },
        availableAt: Date.now() + 3_600_000,
      });
    } finally {
      await store.close();
    }
    const service = await start(db);
    const refused = await requestJson<{ error: { code: string } }>("POST", `${service.url}/orders`, order("o-taken"));
    expect([refused.status, refused.body.error.code]).toEqual([409, "VERQ_ENQUEUE_CONFLICT"]);
    expect((await getOrder(service, "o-taken")).status).toBe(404);
    const taken = await inspectStore(db, "o-taken");
    expect(taken).toMatchObject({
      order: null,
      job: { state: "pending", token: 0, payload: { orderId: "elsewhere" } },
      jobEvents: 1,
    });
    expect(await service.stop()).toEqual({ code: 0, signal: null });

    // Exit 73 after the insert and the enqueue, before the commit: nothing of the order survives.
    const crashing = await start(db, { VERQ_FAILPOINTS: "orders.beforeCommit=exit(73)" });
    const lost = await requestJson("POST", `${crashing.url}/orders`, order("o-2")).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(Error);
    const crashed = await crashing.exited;
    expect(crashed).toEqual({ code: 73, signal: null });
    const restarted = await start(db);
    expect((await getOrder(restarted, "o-2")).status).toBe(404);
    const rolledBack = await inspectStore(db, "o-2");
    // Only the other writer's job and its one event are in the file.
    expect(rolledBack).toMatchObject({
      order: null,
      job: null,
      jobEvents: 0,
      charges: 0,
      receiver: { requests: 0, effects: 0 },
      totals: { orders: 0, events: 1 },
    });
    expect(await restarted.stop()).toEqual({ code: 0, signal: null });
    console.log(
      "[orders rollback]",
      JSON.stringify({
        refusedWith: refused.body.error.code,
        crashExit: crashed.code,
        ordersAfterCrash: rolledBack.order === null ? 0 : 1,
        jobEventsAfterCrash: rolledBack.jobEvents,
      }),
    );
  });

  it("P2, J8: exit 73 right after the order's commit, before any answer or delivery; after restart the charge is made exactly once", async () => {
    const db = join(dir, "after-commit.sqlite");
    const crashing = await start(db, { VERQ_FAILPOINTS: "orders.afterCommit=exit(73)" });
    const lost = await requestJson("POST", `${crashing.url}/orders`, order("o-3")).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(Error); // the client never got its answer
    const crashed = await crashing.exited;
    expect(crashed).toEqual({ code: 73, signal: null });
    const between = await inspectStore(db, "o-3");
    expect(between).toMatchObject({
      order: { id: "o-3", amount_cents: 1299 },
      job: { state: "pending", token: 0 },
      charges: 0,
      receiver: { requests: 0 },
    });

    const restartAt = performance.now();
    const restarted = await start(db);
    const done = await chargeDone(restarted, "o-3");
    const restartToDoneMs = Math.round(performance.now() - restartAt);
    expect(done.body.charge).toEqual({ jobId: "charge-o-3", state: "done", token: 1, attempts: 1, charged: true });

    // The client retries the POST it never got an answer to: the same order, no second charge.
    const retry = await requestJson<{ created: boolean }>("POST", `${restarted.url}/orders`, order("o-3"));
    expect([retry.status, retry.body.created]).toEqual([200, false]);
    const seen = await counts(restarted);
    expect(seen).toEqual({ requests: 1, effects: 1, charges: 1 });
    expect(await restarted.stop()).toEqual({ code: 0, signal: null });
    console.log(
      "[orders crash after commit]",
      JSON.stringify({
        exit: crashed.code,
        receiverRequests: seen.requests,
        effects: seen.effects,
        charges: seen.charges,
        token: done.body.charge.token,
        restartStartMs: restarted.startMs,
        restartToDoneMs,
      }),
    );
  });

  it("J8, J3: exit 73 after the provider committed the charge, before the finish; after restart the job is sent again with token 2, the receiver replays, one charge", async () => {
    const db = join(dir, "after-send.sqlite");
    const leaseMs = 1_500;
    const crashing = await start(db, { VERQ_FAILPOINTS: "job.afterSend=exit(73)" }, ["--lease-ms", String(leaseMs)]);
    const placed = await requestJson("POST", `${crashing.url}/orders`, order("o-4"));
    expect(placed.status).toBe(201);
    const crashed = await crashing.exited;
    expect(crashed).toEqual({ code: 73, signal: null });
    const between = await inspectStore(db, "o-4");
    expect(between).toMatchObject({ job: { state: "leased", token: 1 }, charges: 1, receiver: { requests: 1, effects: 1 } });

    const restartAt = performance.now();
    const restarted = await start(db, {}, ["--lease-ms", String(leaseMs)]);
    const done = await chargeDone(restarted, "o-4");
    const restartToDoneMs = Math.round(performance.now() - restartAt);
    expect(done.body.charge).toEqual({ jobId: "charge-o-4", state: "done", token: 2, attempts: 2, charged: true });
    const seen = await counts(restarted);
    expect(seen).toEqual({ requests: 2, effects: 1, charges: 1 });
    expect(await restarted.stop()).toEqual({ code: 0, signal: null });

    // The crashed worker's late finish with token 1 is refused (SPEC J4, J8).
    const store = await openStore({ path: db });
    try {
      expect(await new JobQueue(store).finish("charge-o-4", 1, "ok")).toBe(false);
    } finally {
      await store.close();
    }
    console.log(
      "[orders crash after send]",
      JSON.stringify({
        exit: crashed.code,
        leaseMs,
        receiverRequests: seen.requests,
        effects: seen.effects,
        charges: seen.charges,
        tokens: [between.job?.token, done.body.charge.token],
        restartStartMs: restarted.startMs,
        restartToDoneMs,
      }),
    );
  });
});
