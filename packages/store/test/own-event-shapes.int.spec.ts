import { JOB_EVENT_TYPES, ManualClock, decideJob, jobCommands, jobStreamDefinition, type StoredShape } from "@verq/core";
import { expectEventShapes } from "@verq/testing";
import { ROOT_CONTEXT, TraceFlags, context, trace } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { describe, expect, it } from "vitest";
import { readAllEvents } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { inMemoryTracing, stopTracing } from "./helpers/in-memory-tracing.ts";
import { buildEveryState, deterministicQueue, runRandomWorkload } from "./helpers/workload.ts";

/*
 * verq's own events keep their shapes as a service's declared ones do: the test kit's snapshot
 * of each event type's fields, at its schema version, fails on a change that does not come with
 * a new version and an upcaster in the stream's definition (docs/streams.md).
 */
describe("the shapes of verq's own job events", () => {
  const stores = freshStores();

  it("are those of the snapshot at their versions, sampled from a store the job queue wrote", async () => {
    const { store } = await stores.open("sqlite");
    const clock = new ManualClock();
    const queue = deterministicQueue(store, clock);
    await buildEveryState(queue, clock);
    await runRandomWorkload(queue, clock, 3, 400);
    await queue.enqueue({ id: "failed-once", payload: { sku: "x" }, maxAttempts: 3, kind: "mail", priority: 100 });
    const failing = await queue.claim("worker-f");
    if (failing?.id !== "failed-once") throw new Error("the job of priority 100 was not claimed first");
    await queue.fail(failing.id, failing.token, new TypeError("bad input"));
    // One job enqueued in a trace (with a tracestate) stores its trace context; the others none.
    inMemoryTracing();
    try {
      const traceState = new TraceState("congo=t61rcWkgMzE");
      const spanContext = {
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: "b7ad6b7169203331",
        traceFlags: TraceFlags.SAMPLED,
      };
      const caller = trace.setSpanContext(ROOT_CONTEXT, { ...spanContext, traceState });
      await context.with(caller, () => queue.enqueue({ id: "traced", payload: { sku: "y" } }));
    } finally {
      stopTracing();
    }
    if ((await queue.get("traced"))?.traceContext?.tracestate !== "congo=t61rcWkgMzE") throw new Error("no trace context stored");
    // A payload's own fields are the service's, not the event's: each sample keeps only that it has one.
    const samples: StoredShape[] = (await readAllEvents(store.db, "job")).map(({ type, data, schemaVersion }) => ({
      type,
      data: type === "job.enqueued" ? { ...(data as object), payload: {} } : data,
      schemaVersion,
    }));
    // `job.pruned` never stays in the log (the job's stream goes with it): its sample is decided.
    const done = await queue.get("done-1");
    if (done === null) throw new Error("no done job");
    const pruned = decideJob(done, jobCommands.prune({ doneCutoff: clock.now() + 1, deadCutoff: null, now: clock.now() + 1 }));
    if (!pruned.accepted) throw new Error(`prune refused: ${pruned.refusal}`);
    const types = new Set([...samples, ...pruned.events].map((e) => e.type));
    expect([...types].sort()).toEqual([...JOB_EVENT_TYPES, "job.pruned"].sort());
    const outcome = await expectEventShapes(
      jobStreamDefinition,
      [...samples, ...pruned.events.map((e) => ({ type: e.type, data: e.data }))],
      new URL("./event-shapes/job.json", import.meta.url),
    );
    expect(outcome.written).toBe(false);
  });
});
