import { fingerprintRequest } from "@verq/core";
import { GuidLedger } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpCoreClient } from "../../src/relay/http-core-client.ts";
import { createRelayServer } from "../../src/relay/relay-server.ts";
import { RelayService } from "../../src/relay/relay-service.ts";
import { eventually, ledgerSnapshot, sendTo, startRelay, type RelayHarness } from "./support/relay-harness.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let h: RelayHarness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    describe("relay over real HTTP on 127.0.0.1: what a channel gets (SPEC G1-G4, G9)", () => {
      it("G1 G9: a completed resend gets the same bytes and no core call, however the JSON is formatted", async () => {
        h = await startRelay(engine);
        const first = await h.send('{"guid":"T-1","amount":700,"to":"ACC-42"}');
        expect(first).toMatchObject({ status: 200, code: "0000", state: "DONE", replayed: "false" });
        const again = await h.send('{"guid":"T-1","amount":700,"to":"ACC-42"}');
        const reformatted = await h.send('{ "to": "ACC-42",\n  "amount": 700, "guid": "T-1" }', {
          "content-type": "Application/JSON; charset=UTF-8",
        });
        expect(again.text).toBe(first.text);
        expect(reformatted.text).toBe(first.text);
        expect(again.replayed).toBe("true");
        expect(h.core.calls("T-1")).toBe(1);
        expect(h.core.bank.balance).toBe(1_000_000 - 700);
      });

      it("G2: the entry holds state, response code, raw request, raw response, attempts and updated time", async () => {
        h = await startRelay(engine);
        const raw = '{"guid":"T-2",  "amount": 25 }';
        const answer = await h.send(raw);
        const entry = await h.entry("T-2");
        expect(entry).toMatchObject({
          guid: "T-2",
          state: "DONE",
          code: "0000",
          request: raw,
          response: answer.text,
          attempts: 1,
          updatedAt: h.clock.now(),
        });
        expect(h.core.bank.requests("T-2")).toEqual([raw]);
        expect((await h.ledger.history("T-2")).map((e) => e.type)).toEqual(["guid.received", "guid.sent", "guid.done"]);
      });

      it("G4: concurrent duplicates give one core call and E903 to the rest", async () => {
        const relay = (h = await startRelay(engine));
        relay.core.delay(400);
        const owner = relay.send({ guid: "T-3", amount: 10 });
        await eventually(() => relay.core.received === 1, "the first request to reach the core");
        const duplicates = await Promise.all(Array.from({ length: 19 }, () => relay.send({ guid: "T-3", amount: 10 })));
        expect(duplicates.map((d) => d.code)).toEqual(Array(19).fill("E903"));
        expect(duplicates.every((d) => d.state === "SENT")).toBe(true);
        expect((await owner).code).toBe("0000");
        expect(h.core.calls("T-3")).toBe(1);
      });

      it("G4: twenty duplicates fired at once through two relays on one database reach the core once", async () => {
        const relay = (h = await startRelay(engine));
        relay.core.delay(100);
        const store2 = await h.database.open();
        const relay2 = new RelayService({
          ledger: new GuidLedger(store2, { clock: h.clock }),
          core: createHttpCoreClient({ url: h.core.url }),
        });
        const app2 = createRelayServer({ relay: relay2 });
        const url2 = `${await app2.listen({ port: 0, host: "127.0.0.1" })}/transfer`;
        try {
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) => sendTo(i % 2 === 0 ? relay.url : url2, { guid: "T-4", amount: 3 })),
          );
          const definite = answers.filter((a) => a.code === "0000");
          expect(definite.length).toBeGreaterThanOrEqual(1);
          expect(new Set(definite.map((a) => a.text)).size).toBe(1);
          expect(answers.every((a) => a.code === "0000" || a.code === "E903")).toBe(true);
          expect(h.core.calls("T-4")).toBe(1);
          expect(h.core.bank.balance).toBe(1_000_000 - 3);
        } finally {
          await app2.close();
          await store2.close();
        }
      });

      it("G3: a timeout gives UNKNOWN (E901), and a resend gets E901 with no core call, also after the core finished", async () => {
        const relay = (h = await startRelay(engine, { coreTimeoutMs: 100 }));
        relay.core.delay(400);
        const first = await h.send({ guid: "T-5", amount: 5 });
        expect(first).toMatchObject({ status: 200, code: "E901", state: "UNKNOWN" });
        expect(await h.send({ guid: "T-5", amount: 5 })).toMatchObject({ code: "E901", state: "UNKNOWN" });
        await eventually(() => relay.core.calls("T-5") === 1, "the slow core to process T-5");
        expect(await h.send({ guid: "T-5", amount: 5 })).toMatchObject({ code: "E901", state: "UNKNOWN" });
        expect(h.core.received).toBe(1);
        expect(await h.entry("T-5")).toMatchObject({ state: "UNKNOWN", code: "E901", attempts: 1, response: null });
      });

      it("G3: a processed request whose answer is dropped is UNKNOWN, and an answer that is not a valid core answer is UNKNOWN", async () => {
        h = await startRelay(engine);
        h.core.dropAnswers();
        expect(await h.send({ guid: "T-6", amount: 5 })).toMatchObject({ code: "E901", state: "UNKNOWN" });
        h.core.dropAnswers(false).answerInvalid();
        expect(await h.send({ guid: "T-7", amount: 5 })).toMatchObject({ code: "E901", state: "UNKNOWN" });
        h.core.answerInvalid(false);
        expect(await h.send({ guid: "T-6", amount: 5 })).toMatchObject({ code: "E901" });
        expect(await h.send({ guid: "T-7", amount: 5 })).toMatchObject({ code: "E901" });
        expect([h.core.calls("T-6"), h.core.calls("T-7")]).toEqual([1, 1]);
        expect((await h.ledger.history("T-7")).at(-1)).toMatchObject({
          type: "guid.unknown",
          data: { reason: "invalid-answer" },
        });
      });

      it("G3: connection refused gives FAILED (E902) with nothing sent; a resend may be sent again, with the same GUID", async () => {
        h = await startRelay(engine);
        await h.core.refuseConnections();
        expect(await h.send({ guid: "T-8", amount: 5 })).toMatchObject({ code: "E902", state: "FAILED" });
        expect(await h.entry("T-8")).toMatchObject({ state: "FAILED", code: "E902", attempts: 1 });
        await h.core.acceptConnections();
        expect(h.core.received).toBe(0);
        const resend = await h.send({ guid: "T-8", amount: 5 });
        expect(resend).toMatchObject({ code: "0000", state: "DONE" });
        expect(await h.entry("T-8")).toMatchObject({ state: "DONE", attempts: 2 });
        expect(h.core.calls("T-8")).toBe(1);
      });

      it("G3: a FAILED entry at the attempt cap gets E902 and the core is not called", async () => {
        h = await startRelay(engine, { maxAttempts: 2 });
        await h.core.refuseConnections();
        await h.send({ guid: "T-9", amount: 5 });
        await h.send({ guid: "T-9", amount: 5 });
        await h.core.acceptConnections();
        expect(await h.send({ guid: "T-9", amount: 5 })).toMatchObject({ code: "E902", state: "FAILED" });
        expect(await h.entry("T-9")).toMatchObject({ attempts: 2 });
        expect(h.core.received).toBe(0);
      });

      it("G3: RECEIVED (claimed, not yet sent) is answered as SENT: E903, no core call", async () => {
        h = await startRelay(engine);
        const request = '{"guid":"T-10","amount":5}';
        await h.ledger.receive({ guid: "T-10", request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
        expect(await h.send(request)).toMatchObject({ code: "E903", state: "RECEIVED" });
        expect(h.core.received).toBe(0);
      });

      it("G3: B2xx and E500 are definite answers: DONE, and replayed byte for byte", async () => {
        h = await startRelay(engine);
        const refused = await h.send({ guid: "T-11", amount: 5_000_000 });
        const broken = await h.send({ guid: "T-12", amount: "a lot" });
        expect([refused.code, refused.state, broken.code, broken.state]).toEqual(["B201", "DONE", "E500", "DONE"]);
        expect((await h.send({ guid: "T-11", amount: 5_000_000 })).text).toBe(refused.text);
        expect((await h.send({ guid: "T-12", amount: "a lot" })).text).toBe(broken.text);
        expect(h.core.totalCalls).toBe(2);
      });

      it("E422: the same GUID with another payload is refused, changes nothing and never reaches the core", async () => {
        h = await startRelay(engine, { coreTimeoutMs: 100 });
        await h.send({ guid: "T-13", amount: 5 });
        h.core.loseRequests();
        await h.send({ guid: "T-14", amount: 5 });
        const before = await ledgerSnapshot(h.store);
        const calls = h.core.received;
        for (const guid of ["T-13", "T-14"]) {
          const answer = await h.send({ guid, amount: 6 });
          expect(answer).toMatchObject({ status: 422, code: "E422" });
          expect(JSON.parse(answer.text)).toMatchObject({ guid, error: { code: "VERQ_GUID_PAYLOAD_MISMATCH" } });
        }
        expect(await ledgerSnapshot(h.store)).toEqual(before);
        expect(h.core.received).toBe(calls);
      });

      it.each([
        ["invalid JSON", 400, "VERQ_INVALID_JSON", '{"guid":"T-20",'],
        ["an empty body", 400, "VERQ_INVALID_JSON", ""],
        ["a JSON array", 400, "VERQ_INVALID_BODY", '[{"guid":"T-20"}]'],
        ["a missing GUID", 400, "VERQ_MISSING_GUID", '{"amount":5}'],
        ["a GUID that is not a string", 400, "VERQ_INVALID_GUID", '{"guid":20,"amount":5}'],
        ["a malformed GUID", 400, "VERQ_INVALID_GUID", '{"guid":"T 20/../x","amount":5}'],
        ["a number JSON cannot carry", 400, "VERQ_INVALID_JSON", '{"guid":"T-20","amount":1e999}'],
        ["an oversized body", 413, "VERQ_BODY_TOO_LARGE", JSON.stringify({ guid: "T-20", pad: "x".repeat(2_000) })],
      ])("%s gets HTTP %i %s, and nothing is recorded or sent", async (_what, status, code, body) => {
        h = await startRelay(engine, { bodyLimit: 1_024 });
        const answer = await h.send(body);
        expect(answer.status).toBe(status);
        expect(answer.code).toBe(code);
        expect(await ledgerSnapshot(h.store)).toEqual({ ledger: [], events: [] });
        expect(h.core.received).toBe(0);
      });

      it.each([
        ["text/plain", { "content-type": "text/plain" }],
        ["text/plain; charset=utf-8", { "content-type": "text/plain; charset=utf-8" }],
        ["application/octet-stream", { "content-type": "application/octet-stream" }],
        ["application/x-www-form-urlencoded", { "content-type": "application/x-www-form-urlencoded" }],
        ["application/jsonp", { "content-type": "application/jsonp" }],
        ["no content type", {}],
      ])(
        "a JSON request sent as %s gets 415 VERQ_UNSUPPORTED_MEDIA_TYPE: nothing recorded, the core not called",
        async (_what, headers) => {
          h = await startRelay(engine);
          const answer = await h.send('{"guid":"T-30","amount":5}', headers);
          expect(answer.status).toBe(415);
          expect(JSON.parse(answer.text)).toEqual({
            error: { code: "VERQ_UNSUPPORTED_MEDIA_TYPE", message: "send the body as Content-Type: application/json" },
          });
          expect(await ledgerSnapshot(h.store)).toEqual({ ledger: [], events: [] });
          expect(h.core.received).toBe(0);
          expect(await h.send('{"guid":"T-30","amount":5}')).toMatchObject({ status: 200, code: "0000", state: "DONE" });
        },
      );

      it("a body that is not UTF-8 gets 400 VERQ_INVALID_JSON and nothing is recorded", async () => {
        h = await startRelay(engine);
        const response = await fetch(h.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: { code: "VERQ_INVALID_JSON" } });
        expect(await ledgerSnapshot(h.store)).toEqual({ ledger: [], events: [] });
      });
    });
  });
}
