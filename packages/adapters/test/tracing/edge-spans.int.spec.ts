import { ENGINES, engineAvailable } from "@verq/testing";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileConsumer } from "../../src/files/file-consumer.ts";
import { makeQueue, withLedger, type TestQueue } from "../files/helpers/queue-fixture.ts";
import { startRelay, type RelayHarness } from "../relay/support/relay-harness.ts";
import { describeSpan, inMemoryTracing } from "../../../store/test/helpers/in-memory-tracing.ts";

const exporter = inMemoryTracing();
const spanTree = (spans: readonly ReadableSpan[]): string => spans.map(describeSpan).join("\n");
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CHANNEL_SPAN = "00f067aa0ba902b7";

beforeEach(() => exporter.reset());

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the relay's spans`, () => {
    let h: RelayHarness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it("receive continues the channel's traceparent; send and record are its children, each with the GUID", async () => {
      h = await startRelay(engine);
      const answer = await h.send('{"guid":"T-trace-1","amount":700}', {
        "content-type": "application/json",
        traceparent: `00-${TRACE_ID}-${CHANNEL_SPAN}-01`,
      });
      expect(answer).toMatchObject({ status: 200, state: "DONE" });
      const spans = exporter.getFinishedSpans();
      const tree = spanTree(spans);
      const [receive, send, record, ...more] = ["verq.relay.receive", "verq.relay.send", "verq.relay.record"].flatMap((name) =>
        spans.filter((s) => s.name === name),
      );
      expect(more, tree).toEqual([]);
      expect(receive?.spanContext().traceId, tree).toBe(TRACE_ID);
      expect(receive?.parentSpanContext?.spanId, tree).toBe(CHANNEL_SPAN);
      expect(receive?.kind, tree).toBe(SpanKind.SERVER);
      expect(receive?.attributes, tree).toEqual({
        "verq.relay.guid": "T-trace-1",
        "verq.relay.received": "claimed",
        "verq.relay.state": "DONE",
        "verq.relay.status": 200,
      });
      for (const child of [send, record]) {
        expect(child?.spanContext().traceId, tree).toBe(TRACE_ID);
        expect(child?.parentSpanContext?.spanId, tree).toBe(receive?.spanContext().spanId);
      }
      expect(send?.kind, tree).toBe(SpanKind.CLIENT);
      expect(send?.attributes, tree).toEqual({
        "verq.relay.guid": "T-trace-1",
        "verq.relay.attempt": 1,
        "verq.relay.call": "answered",
        "verq.relay.core_status": 200,
      });
      expect(record?.attributes, tree).toEqual({
        "verq.relay.guid": "T-trace-1",
        "verq.relay.attempt": 1,
        "verq.relay.state": "DONE",
        "verq.relay.accepted": true,
      });
      // Nothing of the request's body reaches a span.
      expect(tree).not.toMatch(/700/);
    });

    it("a repeat is one receive span with no call; a request refused before the ledger names its problem, not its body", async () => {
      h = await startRelay(engine);
      await h.send('{"guid":"T-trace-2","amount":5}');
      exporter.reset();
      await h.send('{"guid":"T-trace-2","amount":5}');
      await h.send('{"amount":5}');
      const spans = exporter.getFinishedSpans();
      const tree = spanTree(spans);
      expect(
        spans.map((s) => s.name),
        tree,
      ).toEqual(["verq.relay.receive", "verq.relay.receive"]);
      expect(spans[0]?.attributes, tree).toMatchObject({ "verq.relay.guid": "T-trace-2", "verq.relay.received": "repeat" });
      expect(spans[0]?.parentSpanContext, tree).toBeUndefined();
      expect(spans[1]?.attributes, tree).toEqual({
        "verq.relay.status": 400,
        "verq.relay.problem": "missing-guid",
      });
    });
  });

  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the file consumer's spans`, () => {
    let q: TestQueue;
    beforeEach(async () => {
      q = await makeQueue(engine, "traced");
    });
    afterEach(() => q.remove());

    it("one verq.file.settle per settled file, with its message id and outcome; the handler's spans are its children", async () => {
      q.write([
        { name: "1.json", text: JSON.stringify({ msg_id: "M1", order_no: "O-1", seq: 1, amount: 5 }) },
        { name: "2.json", text: JSON.stringify({ msg_id: "M1", order_no: "O-1", seq: 1, amount: 5 }) },
        { name: "3.json", text: "{not json" },
      ]);
      const tracer = trace.getTracer("handler");
      await withLedger(q.db, async (ledger) => {
        const consumer = new FileConsumer({
          root: q.root,
          ledger,
          handler: () => Promise.resolve(tracer.startActiveSpan("handler", (span) => span.end())),
        });
        await consumer.drain();
        const spans = exporter.getFinishedSpans();
        const tree = spanTree(spans);
        const settles = spans.filter((s) => s.name === "verq.file.settle");
        expect(settles, tree).toHaveLength(3);
        // Each span's message id names the message the ledger holds for its file.
        const messages = new Map<string, string>();
        for (const span of settles) {
          const id = String(span.attributes["verq.file.message_id"]);
          const message = await ledger.get(id);
          if (message !== null) messages.set(message.file, id);
        }
        expect([...messages.keys()].sort(), tree).toEqual(["1.json", "2.json", "3.json"]);
        const byFile = (file: string) => settles.find((s) => s.attributes["verq.file.message_id"] === messages.get(file));
        expect(byFile("1.json")?.attributes, tree).toEqual({
          "verq.file.recovered": false,
          "verq.file.message_id": messages.get("1.json"),
          "verq.file.state": "done",
          "verq.file.outcome": "recorded",
        });
        expect(byFile("2.json")?.attributes["verq.file.outcome"], tree).toBe("duplicate");
        expect(byFile("3.json")?.attributes, tree).toMatchObject({ "verq.file.state": "error", "verq.file.reason": "parse" });
        expect(byFile("3.json")?.status.code, tree).toBe(SpanStatusCode.UNSET);
        const [handler, ...others] = spans.filter((s) => s.name === "handler");
        expect(others, tree).toEqual([]);
        expect(handler?.parentSpanContext?.spanId, tree).toBe(byFile("1.json")?.spanContext().spanId);
        expect(tree).not.toMatch(/O-1|not json/);
      });
    });
  });
}
