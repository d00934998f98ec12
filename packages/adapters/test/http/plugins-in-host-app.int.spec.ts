import { VerqError } from "@verq/core";
import { GuidLedger, ReceiptBook, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, TestCore, type TestDatabase } from "@verq/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpCoreClient, receiverPlugin, relayPlugin } from "../../src/index.ts";

/**
 * A service's own Fastify app with its own JSON routes, and verq's relay and receiver mounted
 * in it under prefixes, on a real server on 127.0.0.1: each plugin's raw-body parser, body
 * limit and error handler stay in its own scope.
 */
let database: TestDatabase;
let store: VerqStore;
let core: TestCore;
let host: FastifyInstance;
let base: string;
let received: number;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      database = await createTestDatabase(engine, "service.sqlite");
      store = await database.open();
      core = await TestCore.start();
      received = 0;
      host = Fastify({ logger: false });
      host.post("/orders", (request) => Promise.resolve({ echoed: request.body, type: typeof request.body }));
      host.get("/health", () => Promise.resolve({ ok: true }));
      await host.register(relayPlugin, {
        prefix: "/relay",
        ledger: new GuidLedger(store),
        core: createHttpCoreClient({ url: core.url, timeoutMs: 2_000 }),
        bodyLimit: 1_024,
      });
      await host.register(receiverPlugin, {
        prefix: "/deliveries",
        store,
        effect: (_trx, { body }) => {
          if (typeof (body as { n?: unknown } | undefined)?.n !== "number")
            throw new VerqError("VERQ_INVALID_BODY", 'a delivery is {"n": a number}');
          received++;
          return Promise.resolve({ ok: true, n: (body as { n: number }).n });
        },
      });
      base = await host.listen({ port: 0, host: "127.0.0.1" });
    });
    afterEach(async () => {
      await host.close();
      await core.close();
      await store.close();
      await database.dispose();
    });

    const post = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
      fetch(`${base}${path}`, { method: "POST", headers, body });

    describe("relayPlugin and receiverPlugin in a host app, side by side with its own routes", () => {
      it("G1 J8: the relay answers under /relay, the receiver under /deliveries, the host's JSON route under /orders", async () => {
        const order = await post("/orders", '{"id":1,"lines":[2,3]}');
        expect([order.status, await order.json()]).toEqual([200, { echoed: { id: 1, lines: [2, 3] }, type: "object" }]);

        const text = '{"guid":"H-1","amount":10}';
        const first = await post("/relay/transfer", text);
        const firstText = await first.text();
        expect(first.status).toBe(200);
        expect(JSON.parse(firstText)).toMatchObject({ guid: "H-1", code: "0000" });
        expect(first.headers.get("verq-ledger-state")).toBe("DONE");
        const resend = await post("/relay/transfer", text);
        expect([await resend.text(), resend.headers.get("idempotent-replayed")]).toEqual([firstText, "true"]);
        expect(core.calls("H-1")).toBe(1);

        const delivery = await post("/deliveries", '{"n":5}', { "content-type": "application/json", "idempotency-key": "d-1" });
        const repeat = await post("/deliveries/", '{"n":5}', { "content-type": "application/json", "idempotency-key": "d-1" });
        expect([delivery.status, await delivery.text()]).toEqual([200, '{"ok":true,"n":5}']);
        expect([repeat.status, await repeat.text(), repeat.headers.get("idempotent-replayed")]).toEqual([
          200,
          '{"ok":true,"n":5}',
          "true",
        ]);
        expect(received).toBe(1);
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 2, effects: 1 });

        expect((await fetch(`${base}/health`)).status).toBe(200);
        expect((await post("/transfer", text)).status).toBe(404); // mounted under its prefix only
      });

      it("the plugins' JSON-only parsers stay in their scope: text is refused there, the host keeps its own parsing", async () => {
        const raw = await post("/relay/transfer", '{"guid":"H-2","amount":1}', { "content-type": "application/octet-stream" });
        expect([raw.status, ((await raw.json()) as { error: { code: string } }).error.code]).toEqual([
          415,
          "VERQ_UNSUPPORTED_MEDIA_TYPE",
        ]);
        const text = await post("/relay/transfer", '{"guid":"H-2","amount":1}', { "content-type": "text/plain" });
        expect(text.status).toBe(415);
        const delivery = await post("/deliveries", '{"n":5}', { "content-type": "text/plain", "idempotency-key": "d-9" });
        expect(delivery.status).toBe(415);
        expect(await new GuidLedger(store).get("H-2")).toBeNull();
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 0, effects: 0 });
        const hostRaw = await post("/orders", "bytes", { "content-type": "application/octet-stream" });
        expect(hostRaw.status).toBe(415); // the host has no parser for it
        const hostText = await post("/orders", "plain words", { "content-type": "text/plain" });
        expect(await hostText.json()).toEqual({ echoed: "plain words", type: "string" });
      });

      it("each plugin's error handler and body limit stay in its scope: verq codes inside, the host's own errors outside", async () => {
        const relayBad = await post("/relay/transfer", '{"guid":');
        expect([relayBad.status, ((await relayBad.json()) as { error: { code: string } }).error.code]).toEqual([
          400,
          "VERQ_INVALID_JSON",
        ]);
        const relayTooLarge = await post("/relay/transfer", JSON.stringify({ guid: "H-3", pad: "x".repeat(2_000) }));
        expect([relayTooLarge.status, ((await relayTooLarge.json()) as { error: { code: string } }).error.code]).toEqual([
          413,
          "VERQ_BODY_TOO_LARGE",
        ]);
        expect(await new GuidLedger(store).get("H-3")).toBeNull();

        const receiverBad = await post("/deliveries", '{"n":', { "content-type": "application/json", "idempotency-key": "d-2" });
        expect([receiverBad.status, ((await receiverBad.json()) as { error: { code: string } }).error.code]).toEqual([
          400,
          "VERQ_INVALID_BODY",
        ]);
        const receiverRefused = await post("/deliveries", '{"n":"five"}', {
          "content-type": "application/json",
          "idempotency-key": "d-2",
        });
        expect([receiverRefused.status, await receiverRefused.json()]).toEqual([
          400,
          { error: { code: "VERQ_INVALID_BODY", message: 'a delivery is {"n": a number}' } },
        ]);
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 0, effects: 0 });

        // The host's route: Fastify's own JSON error, and the server's 1 MiB limit rather than the relay's 1 KiB.
        const hostBad = await post("/orders", '{"id":');
        const hostError = (await hostBad.json()) as { code?: string };
        expect(hostBad.status).toBe(400);
        expect(hostError.code).toBe("FST_ERR_CTP_INVALID_JSON_BODY");
        const hostLarge = await post("/orders", JSON.stringify({ pad: "x".repeat(2_000) }));
        expect(hostLarge.status).toBe(200);
      });
    });
  });
}
