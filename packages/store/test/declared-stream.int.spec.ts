import { defineStream, isVerqError, type VerqErrorCode } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { sql, type Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { declareStream, readAllEvents, type OwnProjection, type VerqStore } from "../src/index.ts";
import { ticketDeclaration, ticketStream, type Ticket } from "../../core/test/ticket-stream.ts";
import { freshStores, storesOnOneDatabase } from "./helpers/fresh-store.ts";

const T = 1_700_000_000_000;
const clock = { now: () => T };

async function rejectsWith(code: VerqErrorCode, run: () => Promise<unknown>, message?: RegExp): Promise<void> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(isVerqError(error, code), `${code}: ${String(error)}`).toBe(true);
  if (message !== undefined) expect((error as Error).message).toMatch(message);
}

/** Every event and generic projection row of the store, to show that a refusal wrote nothing. */
async function everything(store: VerqStore) {
  const events = (await readAllEvents(store.db)).map((e) => [e.streamType, e.streamId, e.version, e.type, e.schemaVersion]);
  const states = await store.db.selectFrom("stream_states").selectAll().orderBy("stream_type").orderBy("stream_id").execute();
  return { events, states };
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] streams a service declares`, () => {
    const stores = freshStores();
    const shared = storesOnOneDatabase();

    it("handles commands through the machine: events appended at versions 1..n, the projection the fold of the log", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      const opened = await tickets.handle("t-1", { type: "open", title: "printer" });
      expect(opened).toMatchObject({
        accepted: true,
        stream: { id: "t-1", version: 1, state: "open" },
        events: [{ type: "ticket.opened" }],
      });
      const taken = await tickets.handle("t-1", [
        { type: "take", holder: "ann" },
        { type: "take", holder: "bob" },
      ]);
      expect(taken).toMatchObject({ accepted: true, stream: { version: 3, state: "taken", value: { holder: "bob", token: 2 } } });
      await tickets.handle("t-2", { type: "open", title: "screen" });
      const got = await tickets.get("t-1");
      expect(got).toEqual(ticketStream.fold(ticketStream.initial("t-1"), await tickets.events("t-1")));
      expect((await tickets.events("t-1")).map((e) => [e.version, e.type, e.schemaVersion, e.at])).toEqual([
        [1, "ticket.opened", 1, T],
        [2, "ticket.taken", 1, T],
        [3, "ticket.taken", 1, T],
      ]);
      expect(await tickets.get("t-9")).toBeNull();
      expect(await tickets.countByState()).toEqual({ new: 0, open: 1, taken: 1, closed: 0 });
      expect((await tickets.list({ state: "open" })).map((t) => t.id)).toEqual(["t-2"]);
      expect((await tickets.list({ limit: 1 })).map((t) => t.id)).toEqual(["t-1"]);
      expect((await tickets.list({ after: "t-1" })).map((t) => t.id)).toEqual(["t-2"]);
      const row = await store.db.selectFrom("stream_states").selectAll().where("stream_id", "=", "t-1").executeTakeFirstOrThrow();
      expect([row.stream_type, row.state, Number(row.version), Number(row.token), Number(row.updated_at)]).toEqual([
        "ticket",
        "taken",
        3,
        2,
        T,
      ]);
      expect(await tickets.check()).toEqual([]);
    });

    it("answers a refusal as data from the state it refused, and writes nothing for it or for a sequence it ends", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      await tickets.handle("t-1", [
        { type: "open", title: "printer" },
        { type: "take", holder: "ann" },
      ]);
      const before = await everything(store);
      const stale = await tickets.handle("t-1", { type: "close", token: 0 });
      expect(stale).toMatchObject({
        accepted: false,
        refusal: "stale-token",
        command: "close",
        stream: { version: 2, state: "taken" },
      });
      const sequence = await tickets.handle("t-1", [
        { type: "take", holder: "bob" },
        { type: "close", token: 1 },
      ]);
      expect(sequence).toMatchObject({ accepted: false, refusal: "stale-token", command: "close" });
      expect(await tickets.handle("t-new", { type: "open", title: "" })).toMatchObject({
        accepted: false,
        refusal: "empty-title",
      });
      expect(await tickets.handle("t-new", { type: "take", holder: "x" })).toMatchObject({
        accepted: false,
        refusal: "unhandled",
      });
      expect(await everything(store)).toEqual(before);
    });

    it("refuses bad input with its code before anything is read, and a second definition of a name", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      await tickets.handle("t-1", { type: "open", title: "printer" });
      const before = await everything(store);
      await rejectsWith("VERQ_UNKNOWN_COMMAND", () => tickets.handle("t-1", { type: "reopen" }), /no command "reopen"/);
      await rejectsWith("VERQ_UNKNOWN_COMMAND", () =>
        tickets.handleMany([{ id: "t-2", commands: [{ type: "open", title: "a" }, null as never] }]),
      );
      await rejectsWith("VERQ_INVALID_PAYLOAD", () => tickets.handle("t-1", { type: "take", holder: new Date() as never }));
      await rejectsWith("VERQ_INVALID_ID", () => tickets.handle("", { type: "open", title: "a" }));
      await rejectsWith("VERQ_INVALID_ID", () => tickets.get("\u0000"));
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.handleMany([{ id: "t-3", commands: [] }]));
      await rejectsWith(
        "VERQ_INVALID_ARGUMENT",
        () => tickets.handle("t-3", { type: "open", title: "a" }, { trx: store.db }),
        /trx must be a Kysely transaction/,
      );
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.list({ limit: 0 }));
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.list({ limit: 1001 }));
      expect(await everything(store)).toEqual(before);
      expect(() => declareStream(store, defineStream({ ...ticketDeclaration }))).toThrow(
        /"ticket" is already declared on this store/,
      );
      expect(declareStream(store, ticketStream).definition).toBe(ticketStream);
    });

    it("checks a command's fields against its Standard Schema before anything is read, and decides the schema's output", async () => {
      const { store } = await stores.open(engine);
      // A hand-written Standard Schema: a title of 1 to 40 characters, trimmed.
      const openSchema = {
        "~standard": {
          version: 1 as const,
          vendor: "test",
          validate: (value: unknown) => {
            const title = (value as { title?: unknown }).title;
            return typeof title === "string" && title.trim().length > 0 && title.length <= 40
              ? { value: { type: "open", title: title.trim() } }
              : { issues: [{ message: "bad title", path: ["title"] }] };
          },
        },
      };
      const tickets = declareStream(store, ticketStream, { clock, schemas: { open: openSchema } });
      await rejectsWith(
        "VERQ_INVALID_PAYLOAD",
        () => tickets.handle("t-1", { type: "open", title: 7 }),
        /command "open" does not match its schema at \$\.title$/,
      );
      await rejectsWith("VERQ_INVALID_PAYLOAD", () => tickets.handle("t-1", { type: "open" }));
      expect(await everything(store)).toEqual({ events: [], states: [] });
      expect(await tickets.handle("t-1", { type: "open", title: "  printer  " })).toMatchObject({
        accepted: true,
        stream: { value: { title: "printer" } },
      });
      const retyped = {
        "~standard": { version: 1 as const, vendor: "test", validate: () => ({ value: { type: "take", holder: "x" } }) },
      };
      await rejectsWith(
        "VERQ_INVALID_PAYLOAD",
        () => declareStream(store, ticketStream, { schemas: { open: retyped } }).handle("t-2", { type: "open", title: "a" }),
        /must keep its type/,
      );
      expect(() => declareStream(store, ticketStream, { schemas: { reopen: openSchema } })).toThrow(/a schema for "reopen"/);
      expect(() => declareStream(store, ticketStream, { schemas: { open: {} as never } })).toThrow(/not a Standard Schema/);
      // An unknown command type is named only when it looks like a name; list takes only the machine's states.
      await rejectsWith(
        "VERQ_UNKNOWN_COMMAND",
        () => tickets.handle("t-1", { type: "x".repeat(300) }),
        /of a type of 300 characters that is not a name$/,
      );
      await rejectsWith(
        "VERQ_UNKNOWN_COMMAND",
        () => tickets.handle("t-1", { type: 5 } as never),
        /without a string type \(number\)$/,
      );
      await rejectsWith(
        "VERQ_INVALID_ARGUMENT",
        () => tickets.list({ state: "lost" }),
        /state must be one of new, open, taken, closed/,
      );
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.handleMany("t-1" as never), /takes an array/);
    });

    it("joins the service's own transaction: its rows and the stream's events commit together or not at all", async () => {
      const { store } = await stores.open(engine);
      await sql`create table desk_notes (id text primary key)`.execute(store.db);
      const tickets = declareStream(store, ticketStream, { clock });
      const notes = (trx: Kysely<never>) => trx.withTables<{ desk_notes: { id: string } }>().insertInto("desk_notes");
      await expect(
        store.transaction(async (trx) => {
          await notes(trx as never)
            .values({ id: "n-1" })
            .execute();
          await tickets.handle("t-1", { type: "open", title: "printer" }, { trx });
          throw new Error("the service changed its mind");
        }),
      ).rejects.toThrow(/changed its mind/);
      expect(await tickets.get("t-1")).toBeNull();
      expect((await everything(store)).events).toEqual([]);
      await store.transaction(async (trx) => {
        await notes(trx as never)
          .values({ id: "n-1" })
          .execute();
        const answer = await tickets.handle("t-1", { type: "open", title: "printer" }, { trx });
        expect(answer.accepted).toBe(true);
      });
      expect((await tickets.get("t-1"))?.state).toBe("open");
      const rows = await sql<{ id: string }>`select id from desk_notes`.execute(store.db);
      expect(rows.rows).toEqual([{ id: "n-1" }]);
    });

    it("decides again after another writer appended first: concurrent takes each get their own token, versions without gaps", async () => {
      // Two stores on PostgreSQL race through the UNIQUE arbiter; SQLite's one store in a process serialises its writers.
      const first = await shared.open(engine);
      const second = engine === "postgres" ? await shared.open(engine) : first;
      const a = declareStream(first, ticketStream);
      const b = declareStream(second, ticketStream);
      await a.handle("t-1", { type: "open", title: "printer" });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).handle("t-1", { type: "take", holder: `h${i}` })),
      );
      const tokens = answers.map((answer) => (answer.accepted ? answer.stream.value.token : -1)).sort((x, y) => x - y);
      expect(tokens).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const events = await a.events("t-1");
      expect(events.map((e) => e.version)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
      expect(events.slice(1).map((e) => e.data.token)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await a.get("t-1")).toMatchObject({ version: 13, value: { token: 12 } });
      expect(await a.check()).toEqual([]);
    });

    it("finds a projection row that is not the fold of its log, and rebuilds every row from the log", async () => {
      const { store } = await stores.open(engine);
      const tickets = declareStream(store, ticketStream, { clock });
      for (const id of ["t-1", "t-2", "t-3"]) await tickets.handle(id, { type: "open", title: id });
      await tickets.handle("t-2", { type: "take", holder: "ann" });
      await store.db.updateTable("stream_states").set({ value: "{}" }).where("stream_id", "=", "t-1").execute();
      await store.db.updateTable("stream_states").set({ token: 9 }).where("stream_id", "=", "t-2").execute();
      await store.db.deleteFrom("stream_states").where("stream_id", "=", "t-3").execute();
      await store.db
        .insertInto("stream_states")
        .values({ stream_type: "ticket", stream_id: "t-0", state: "open", version: 1, token: 0, value: "{}", updated_at: T })
        .execute();
      expect(await tickets.check()).toEqual([
        { streamId: "t-1", problem: "differs" },
        { streamId: "t-2", problem: "differs" },
        { streamId: "t-3", problem: "missing" },
        { streamId: "t-0", problem: "orphan" },
      ]);
      expect(await tickets.rebuild()).toBe(3);
      expect(await tickets.check()).toEqual([]);
      expect(await tickets.get("t-2")).toMatchObject({ version: 2, value: { holder: "ann", token: 1 } });
      expect(await tickets.get("t-0")).toBeNull();
    });

    it("keeps a service's own projection in the transaction of the events, loads by folding the log, and rebuilds it", async () => {
      const { store } = await stores.open(engine);
      await sql`create table ticket_board (id text primary key, state text not null, holder text)`.execute(store.db);
      type Board = { ticket_board: { id: string; state: string; holder: string | null } };
      const board: OwnProjection<Ticket> = {
        async write(trx, changes) {
          for (const { after } of changes) {
            const row = { id: after.id, state: after.state, holder: after.value.holder };
            await (trx as Kysely<Board>)
              .insertInto("ticket_board")
              .values(row)
              .onConflict((c) => c.column("id").doUpdateSet({ state: row.state, holder: row.holder }))
              .execute();
          }
        },
        async clear(trx) {
          await (trx as Kysely<Board>).deleteFrom("ticket_board").execute();
        },
      };
      const tickets = declareStream(store, ticketStream, { clock, projection: board });
      await tickets.handle("t-1", { type: "open", title: "printer" });
      await tickets.handle("t-1", { type: "take", holder: "ann" });
      expect(await tickets.handle("t-1", { type: "close", token: 5 })).toMatchObject({ accepted: false, refusal: "stale-token" });
      const rows = () => (store.db as unknown as Kysely<Board>).selectFrom("ticket_board").selectAll().execute();
      expect(await rows()).toEqual([{ id: "t-1", state: "taken", holder: "ann" }]);
      expect(await store.db.selectFrom("stream_states").selectAll().execute()).toEqual([]);
      expect(await tickets.get("t-1")).toMatchObject({ version: 2, state: "taken", value: { token: 1 } });
      await (store.db as unknown as Kysely<Board>).updateTable("ticket_board").set({ holder: "nobody" }).execute();
      expect(await tickets.rebuild()).toBe(1);
      expect(await rows()).toEqual([{ id: "t-1", state: "taken", holder: "ann" }]);
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.list(), /keeps its own projection/);
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.check(), /keeps its own projection/);
      await rejectsWith("VERQ_INVALID_ARGUMENT", () => tickets.countByState(), /keeps its own projection/);
    });

    it("reads a log written with an event's old shape through its upcaster, writes new events at the new version, never rewrites the log", async () => {
      const before = await shared.open(engine);
      const v1 = declareStream(before, ticketStream, { clock });
      await v1.handle("t-1", [
        { type: "open", title: "printer" },
        { type: "take", holder: "ann" },
      ]);
      await v1.handle("t-2", { type: "open", title: "screen" });
      const rawBefore = await before.db
        .selectFrom("events")
        .select(["stream_id", "version", "data", "schema_version"])
        .orderBy("position")
        .execute();
      // The next release renames the holder of `ticket.taken` to `agent`: version 2, with its upcaster.
      const renamed = defineStream({
        ...ticketDeclaration,
        evolve: (ticket, event) =>
          ticketDeclaration.evolve(
            ticket,
            event.type === "ticket.taken"
              ? { type: event.type, data: { ...event.data, holder: event.data.agent ?? null } }
              : event,
          ),
        machine: ticketDeclaration.machine.provide({}),
        events: {
          "ticket.taken": { version: 2, upcasters: { 1: ({ holder, ...rest }) => ({ ...rest, agent: holder ?? null }) } },
        },
      });
      const after = await shared.open(engine);
      const v2 = declareStream(after, renamed, { clock });
      expect((await v2.events("t-1")).map((e) => [e.type, e.schemaVersion, e.data])).toEqual([
        ["ticket.opened", 1, { title: "printer", at: T }],
        ["ticket.taken", 2, { token: 1, at: T, agent: "ann" }],
      ]);
      expect(await v2.rebuild()).toBe(2);
      expect(await v2.check()).toEqual([]);
      expect(await v2.get("t-1")).toMatchObject({ version: 2, value: { holder: "ann", token: 1 } });
      // A rule of the old machine still holds on the upcast state: only token 1 closes.
      expect(await v2.handle("t-1", { type: "close", token: 0 })).toMatchObject({ accepted: false, refusal: "stale-token" });
      expect(await v2.handle("t-1", { type: "close", token: 1 })).toMatchObject({ accepted: true });
      const raw = await after.db
        .selectFrom("events")
        .select(["stream_id", "version", "data", "schema_version"])
        .orderBy("position")
        .execute();
      expect(raw.slice(0, rawBefore.length)).toEqual(rawBefore);
      expect(rawBefore.map((row) => Number(row.schema_version))).toEqual([1, 1, 1]);
      expect(raw.length).toBe(rawBefore.length + 1);
      // A reader still at version 1 cannot read what the new one wrote, and says so.
      await v2.handle("t-2", { type: "take", holder: "bob" });
      expect(
        (
          await after.db
            .selectFrom("events")
            .select("schema_version")
            .where("stream_id", "=", "t-2")
            .where("version", "=", 2)
            .executeTakeFirstOrThrow()
        ).schema_version,
      ).toBe(2);
      await rejectsWith("VERQ_EVENT_FROM_NEWER_SCHEMA", () => v1.events("t-2"), /written at version 2, newer than this code's 1/);
      expect(await v1.check()).toEqual([{ streamId: "t-2", problem: "invalid" }]);
    });

    it("leaves every event of verq's own streams at schema version 1", async () => {
      const { store } = await stores.open(engine);
      const { JobQueue } = await import("../src/index.ts");
      const queue = new JobQueue(store);
      await queue.enqueue({ id: "j-1", payload: { n: 1 } });
      const events = await readAllEvents(store.db, "job");
      expect(events.map((e) => e.schemaVersion)).toEqual([1]);
    });
  });
}
