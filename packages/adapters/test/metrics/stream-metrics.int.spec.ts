import { defineStream } from "@verq/core";
import { declareStream, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ticketDeclaration } from "../../../core/test/ticket-stream.ts";
import { createMetricsServer, registerVerqMetrics } from "../../src/index.ts";
import { labelStreams } from "../../src/metrics/stream-figures.ts";
import { MARKUP_TICKET, seedTickets } from "../dashboard/support/seed-streams.ts";
import { parseExposition } from "./support/prometheus-text.ts";

/*
 * verq_streams{stream_type,state}: the streams of each declared stream type by state, read from
 * the generic projection at each scrape on both engines, with no definition given to the
 * metrics; its labels bounded by name like the others, the values folded counted in
 * verq_metric_labels_overflow_total.
 */

/** A second declared type beside the ticket: the same machine under another name. */
const desk = defineStream({ ...ticketDeclaration, name: "desk" });

/** The `verq_streams` samples of an exposition, by their labels. */
const streamSamples = (text: string): Record<string, number> =>
  Object.fromEntries([...parseExposition(text).samples].filter(([key]) => key.startsWith("verq_streams")));

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] registerVerqMetrics: declared streams`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let app: FastifyInstance | undefined;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "streams.sqlite");
      store = await database.open();
      // Tickets: open 1, taken 2, closed 1. Desks: open 1, closed 1.
      await seedTickets(store);
      const desks = declareStream(store, desk, { clock: { now: () => 1 } });
      await desks.handle("d-1", { type: "open", title: "chair" });
      await desks.handle("d-2", [
        { type: "open", title: "lamp" },
        { type: "take", holder: "eve" },
        { type: "close", token: 1 },
      ]);
    });
    afterEach(async () => {
      await app?.close();
      app = undefined;
      await store.close();
      await database.dispose();
    });

    it("a scrape over HTTP has the streams of every type by state, from a store whose metrics know no definition", async () => {
      // Another process of the service: it declared nothing, and the metrics read every type there is.
      const reader = await database.open();
      try {
        const registry = new Registry();
        registerVerqMetrics(registry, { store: reader });
        app = createMetricsServer({ registry });
        const base = await app.listen({ port: 0, host: "127.0.0.1" });
        const text = await (await fetch(`${base}/metrics`)).text();
        expect(text).toContain("# TYPE verq_streams gauge");
        expect(streamSamples(text)).toEqual({
          'verq_streams{state="closed",stream_type="desk"}': 1,
          'verq_streams{state="open",stream_type="desk"}': 1,
          'verq_streams{state="closed",stream_type="ticket"}': 1,
          'verq_streams{state="open",stream_type="ticket"}': 1,
          'verq_streams{state="taken",stream_type="ticket"}': 2,
        });
        // A stream id is never a label.
        for (const id of ["t-1", "t-3", "d-1", MARKUP_TICKET]) expect(text).not.toContain(id);

        // Read at scrape time: a stream that moves shows in the next scrape; a series exists while streams are in it.
        const desks = declareStream(store, desk, { clock: { now: () => 2 } });
        await desks.handle("d-1", { type: "take", holder: "fay" });
        const next = streamSamples(await (await fetch(`${base}/metrics`)).text());
        expect(next['verq_streams{state="open",stream_type="desk"}']).toBeUndefined();
        expect(next['verq_streams{state="taken",stream_type="desk"}']).toBe(1);
      } finally {
        await reader.close();
      }
    });

    it("stream types and the states of each are bounded by name: the others are summed under _other and counted", async () => {
      const registry = new Registry();
      registerVerqMetrics(registry, { store, maxStreamTypes: 1, maxStreamStates: 1 });
      const text = await registry.metrics();
      // Types desk | ticket; the states of desk closed | open, those of _other (the ticket's) closed | open taken.
      expect(streamSamples(text)).toEqual({
        'verq_streams{state="closed",stream_type="desk"}': 1,
        'verq_streams{state="_other",stream_type="desk"}': 1,
        'verq_streams{state="closed",stream_type="_other"}': 1,
        'verq_streams{state="_other",stream_type="_other"}': 3,
      });
      const samples = parseExposition(text).samples;
      expect(samples.get('verq_metric_labels_overflow_total{label="stream_type",metric="verq_streams"}')).toBe(1);
      expect(samples.get('verq_metric_labels_overflow_total{label="state",metric="verq_streams"}')).toBe(3);
    });
  });
}

describe("labelStreams", () => {
  it("keeps every type and state within the bounds, sorted by type then state", () => {
    const counts = [
      { streamType: "ticket", state: "taken", count: 2 },
      { streamType: "desk", state: "open", count: 1 },
      { streamType: "ticket", state: "open", count: 1 },
    ];
    expect(labelStreams(counts, { types: 100, states: 100 })).toEqual({
      counts: [
        { streamType: "desk", state: "open", count: 1 },
        { streamType: "ticket", state: "open", count: 1 },
        { streamType: "ticket", state: "taken", count: 2 },
      ],
      folded: { streamType: 0, state: 0 },
    });
  });

  it("bounds the states of the types folded into _other together, so that no label pair grows without bound", () => {
    const counts = ["a", "b", "c"].flatMap((streamType) =>
      ["x", "y"].map((state) => ({ streamType, state: `${streamType}-${state}`, count: 1 })),
    );
    const labelled = labelStreams(counts, { types: 1, states: 2 });
    expect(labelled.counts).toEqual([
      { streamType: "_other", state: "_other", count: 2 },
      { streamType: "_other", state: "b-x", count: 1 },
      { streamType: "_other", state: "b-y", count: 1 },
      { streamType: "a", state: "a-x", count: 1 },
      { streamType: "a", state: "a-y", count: 1 },
    ]);
    expect(labelled.folded).toEqual({ streamType: 2, state: 2 });
  });
});
