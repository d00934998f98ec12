import { defineStream } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { EventSubscriptions, checkStore, declareStream, formatFinding, type StoredEvent } from "../src/index.ts";
import { ticketDeclaration, ticketStream } from "../../core/test/ticket-stream.ts";
import { freshStores } from "./helpers/fresh-store.ts";

const T = 1_700_000_000_000;
const clock = { now: () => T };

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] declared streams in the check and the subscriptions`, () => {
    const stores = freshStores();

    it("checks a declared stream's projection against the fold of its log, and finds each kind of damage", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      for (const id of ["t-1", "t-2", "t-3"]) await tickets.handle(id, { type: "open", title: id });
      await tickets.handle("t-2", [
        { type: "take", holder: "ann" },
        { type: "take", holder: "bob" },
      ]);
      const clean = await checkStore(store, { streams: [ticketStream] });
      expect(clean.findings).toEqual([]);
      expect(clean.checked.byStreamType.ticket).toEqual({ streams: 3, events: 5 });

      await store.db.updateTable("stream_states").set({ token: 1 }).where("stream_id", "=", "t-2").execute();
      await store.db.updateTable("stream_states").set({ value: '{"state":"open"}' }).where("stream_id", "=", "t-1").execute();
      await store.db.deleteFrom("stream_states").where("stream_id", "=", "t-3").execute();
      await store.db
        .insertInto("stream_states")
        .values({ stream_type: "ticket", stream_id: "t-9", state: "open", version: 1, token: 0, value: "{}", updated_at: T })
        .execute();
      const damaged = await checkStore(store, { streams: [ticketStream] });
      expect(damaged.findings.map(formatFinding)).toEqual([
        "PROJECTION_MISMATCH ticket/t-1 stream_states row: value differs",
        "PROJECTION_MISMATCH ticket/t-2 stream_states row: token=1 (fold: 2)",
        "PROJECTION_MISSING ticket/t-3 no stream_states row for a stream of 1 events",
        "PROJECTION_ORPHAN ticket/t-9 stream_states row without events",
      ]);
      // Without the definition, the check knows only the log's order: versions and positions.
      expect((await checkStore(store)).findings).toEqual([]);
      await tickets.rebuild();
      expect((await checkStore(store, { streams: [ticketStream] })).findings).toEqual([]);
    });

    it("reports an event its definition cannot fold, for a declared stream type", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      await tickets.handle("t-1", [
        { type: "open", title: "printer" },
        { type: "take", holder: "ann" },
      ]);
      const older = defineStream({
        ...ticketDeclaration,
        name: "ticket",
        evolve: () => {
          throw new Error("cannot fold");
        },
      });
      const report = await checkStore(store, { streams: [older] });
      expect(report.findings.map(formatFinding)).toEqual(["EVENT_INVALID ticket/t-1 v1 ticket.opened: cannot fold"]);
    });

    it("delivers a declared stream's events upcast to their current schema, and other streams' as stored", async () => {
      const { store } = await stores.open(engine);
      await declareStream(store, ticketStream, { clock }).handle("t-1", [
        { type: "open", title: "printer" },
        { type: "take", holder: "ann" },
      ]);
      const renamed = defineStream({
        ...ticketDeclaration,
        events: {
          "ticket.taken": { version: 2, upcasters: { 1: ({ holder, ...rest }) => ({ ...rest, agent: holder ?? null }) } },
        },
      });
      const read = async (streams?: readonly (typeof renamed)[]) => {
        const seen: StoredEvent[] = [];
        await new EventSubscriptions(store).subscribe({
          live: false,
          ...(streams ? { streams } : {}),
          handle: (batch) => void seen.push(...batch),
        }).done;
        return seen.map((e) => [e.type, e.schemaVersion, e.data]);
      };
      expect(await read([renamed])).toEqual([
        ["ticket.opened", 1, { title: "printer", at: T }],
        ["ticket.taken", 2, { token: 1, at: T, agent: "ann" }],
      ]);
      expect(await read()).toEqual([
        ["ticket.opened", 1, { title: "printer", at: T }],
        ["ticket.taken", 1, { holder: "ann", token: 1, at: T }],
      ]);
    });
  });
}
