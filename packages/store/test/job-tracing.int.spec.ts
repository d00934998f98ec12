import { Retryable } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, VERQ_TRACER_VERSION, checkStore, verqTracing, type VerqStore } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { describeSpan, inMemoryTracing } from "./helpers/in-memory-tracing.ts";
import { until } from "./helpers/until.ts";

const exporter = inMemoryTracing();
const tracer = trace.getTracer("job-tracing-test");
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

/** The finished spans of a trace, one per line: what a failed expectation shows. */
const spanTree = (spans: readonly ReadableSpan[]): string => spans.map(describeSpan).join("\n");

/** Enqueues `id` inside an active span `parent` and returns that span's ids. */
async function enqueueUnderParent(queue: JobQueue, id: string): Promise<{ traceId: string; spanId: string }> {
  return tracer.startActiveSpan("parent", async (parent) => {
    try {
      await queue.enqueue({ id, payload: { n: 1 }, kind: "mail", queue: "mails", maxAttempts: 3 });
      return parent.spanContext();
    } finally {
      parent.end();
    }
  });
}

/** Works until `id` is done: the retry waits for its backoff (1 ms) between the drains. */
async function workUntilDone(store: VerqStore, queue: JobQueue, worker: JobWorker, id: string): Promise<void> {
  await until(async () => {
    await worker.drain();
    return (await queue.get(id))?.state === "done";
  }, `${id} done`);
  expect((await checkStore(store)).findings).toEqual([]);
}

beforeEach(() => exporter.reset());

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the spans of a job`, () => {
    const stores = freshStores();

    it("enqueue under the caller's span; each attempt's handle continues that trace; each finish under its handle", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store, { backoff: { baseMs: 1, factor: 1, maxMs: 1, jitter: "none" } });
      const parent = await enqueueUnderParent(queue, "traced-1");
      let calls = 0;
      const worker = new JobWorker(queue, {
        owner: "w",
        logger: null,
        queues: ["mails"],
        sender: () => {
          calls++;
          if (calls === 1) throw new Retryable();
          return true;
        },
      });
      await workUntilDone(store, queue, worker, "traced-1");

      const spans = exporter.getFinishedSpans();
      const tree = spanTree(spans);
      const named = (name: string) => spans.filter((s) => s.name === name);
      const [enqueue, ...moreEnqueues] = named("verq.job.enqueue");
      const handles = named("verq.job.handle");
      const finishes = named("verq.job.finish");
      expect(moreEnqueues, tree).toEqual([]);
      expect(handles, tree).toHaveLength(2);
      expect(finishes, tree).toHaveLength(2);

      // The enqueue is a child of the caller's span, and its context is stored with the job.
      expect(enqueue?.spanContext().traceId, tree).toBe(parent.traceId);
      expect(enqueue?.parentSpanContext?.spanId, tree).toBe(parent.spanId);
      expect(enqueue?.kind, tree).toBe(SpanKind.PRODUCER);
      expect(enqueue?.instrumentationScope, tree).toMatchObject({ name: "verq", version: VERQ_TRACER_VERSION });
      expect(enqueue?.attributes, tree).toEqual({
        "verq.job.id": "traced-1",
        "verq.job.queue": "mails",
        "verq.job.kind": "mail",
        "verq.job.created": true,
      });
      const job = await queue.get("traced-1");
      expect(job?.traceContext?.traceparent).toMatch(TRACEPARENT);
      expect(job?.traceContext?.traceparent.split("-").slice(1, 3)).toEqual([parent.traceId, enqueue?.spanContext().spanId]);

      // Each attempt's handle continues the stored trace, under the enqueue span.
      const byAttempt = [...handles].sort(
        (a, b) => Number(a.attributes["verq.job.attempt"]) - Number(b.attributes["verq.job.attempt"]),
      );
      for (const [i, handle] of byAttempt.entries()) {
        expect(handle.spanContext().traceId, tree).toBe(parent.traceId);
        expect(handle.parentSpanContext?.spanId, tree).toBe(enqueue?.spanContext().spanId);
        expect(handle.kind, tree).toBe(SpanKind.CONSUMER);
        expect(handle.attributes, tree).toMatchObject({
          "verq.job.id": "traced-1",
          "verq.job.token": i + 1,
          "verq.job.attempt": i + 1,
          "verq.job.queue": "mails",
          "verq.job.kind": "mail",
          "verq.job.outcome": i === 0 ? "retry" : "ok",
        });
      }
      const [first, second] = byAttempt;
      expect(first?.status, tree).toEqual({ code: SpanStatusCode.ERROR, message: "VERQ_RETRYABLE" });
      expect(first?.attributes, tree).toMatchObject({ "verq.failure.category": "retryable", "verq.failure.class": "Retryable" });
      expect(second?.status.code, tree).toBe(SpanStatusCode.UNSET);
      // No message text of the failure reaches a span.
      expect(tree).not.toMatch(/temporary failure/);

      // Each finish is a child of its attempt's handle, retry first, then ok; both accepted.
      for (const [i, handle] of byAttempt.entries()) {
        const finish = finishes.find((f) => f.parentSpanContext?.spanId === handle.spanContext().spanId);
        expect(finish?.spanContext().traceId, tree).toBe(parent.traceId);
        expect(finish?.attributes, tree).toEqual({
          "verq.job.id": "traced-1",
          "verq.job.token": i + 1,
          "verq.job.outcome": i === 0 ? "retry" : "ok",
          "verq.job.accepted": true,
        });
      }
      // The stored context is part of the projection: a rebuild from the log gives the same row.
      await store.rebuildProjections();
      expect(await queue.get("traced-1")).toEqual(job);
      expect((await checkStore(store)).findings).toEqual([]);
      if (process.env.VERQ_PRINT_SPANS === "1") console.log(tree);
    });

    it("a job enqueued outside any trace starts one at its enqueue span, which its handling continues", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store);
      await queue.enqueueMany([{ id: "plain-1", payload: null }]);
      const worker = new JobWorker(queue, { owner: "w", logger: null, sender: () => true });
      // Worked inside another span: the job's handling does not join it, but the job's own trace.
      const unrelated = await tracer.startActiveSpan("unrelated", async (span) => {
        await workUntilDone(store, queue, worker, "plain-1");
        span.end();
        return span.spanContext();
      });
      const spans = exporter.getFinishedSpans();
      const tree = spanTree(spans);
      const [enqueue] = spans.filter((s) => s.name === "verq.job.enqueue");
      const [handle] = spans.filter((s) => s.name === "verq.job.handle");
      const [finish] = spans.filter((s) => s.name === "verq.job.finish");
      expect(enqueue?.parentSpanContext, tree).toBeUndefined();
      expect((await queue.get("plain-1"))?.traceContext?.traceparent, tree).toBe(
        `00-${enqueue?.spanContext().traceId}-${enqueue?.spanContext().spanId}-01`,
      );
      expect(handle?.spanContext().traceId, tree).not.toBe(unrelated.traceId);
      expect(handle?.parentSpanContext?.spanId, tree).toBe(enqueue?.spanContext().spanId);
      expect(finish?.parentSpanContext?.spanId, tree).toBe(handle?.spanContext().spanId);
      expect(finish?.attributes["verq.job.accepted"], tree).toBe(true);
    });

    it("a refused enqueue's span says why, by its code", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store);
      await queue.enqueue({ id: "conflict-1", payload: { a: 1 } });
      await expect(queue.enqueue({ id: "conflict-1", payload: { a: 2 } })).rejects.toMatchObject({
        code: "VERQ_ENQUEUE_CONFLICT",
      });
      const refused = exporter.getFinishedSpans().filter((s) => s.name === "verq.job.enqueue")[1];
      expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR, message: "VERQ_ENQUEUE_CONFLICT" });
      expect(refused?.attributes["verq.error.code"]).toBe("VERQ_ENQUEUE_CONFLICT");
    });
  });
}

describe("trace contexts stored with a job", () => {
  it("are what the W3C propagator wrote: a traceparent of version 00, and a tracestate when there is one", () => {
    const tracing = verqTracing();
    expect(tracing.installed).toBe(true);
    const span = tracing.start("outer", {});
    const injected = span.run(() => tracing.inject());
    span.end();
    expect(injected?.traceparent).toMatch(TRACEPARENT);
    expect(injected?.tracestate).toBeUndefined();
    // Outside any span there is nothing to store.
    expect(tracing.inject()).toBeUndefined();
  });
});
