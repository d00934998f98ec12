import { assign, setup } from "xstate";
import { describe, expect, it } from "vitest";
import { defineStream, isVerqError, type StreamDeclaration, type VerqErrorCode } from "../src/index.ts";
import { ticketDeclaration, ticketStream, type Ticket, type TicketRefusal } from "./ticket-stream.ts";

const T = 1_700_000_000_000;

function refusedWith(code: VerqErrorCode, run: () => unknown, message?: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(isVerqError(error, code), `${code}: ${String(error)}`).toBe(true);
    if (message !== undefined) expect((error as Error).message).toMatch(message);
    return;
  }
  throw new Error(`expected ${code}`);
}

const declare = (change: Partial<StreamDeclaration<Ticket, TicketRefusal>>) => defineStream({ ...ticketDeclaration, ...change });

describe("defineStream: a declaration is checked once, each problem a coded error", () => {
  it("refuses a name that is not lower-case letters, digits and dashes from a letter, and verq's own stream types", () => {
    for (const name of ["", "Ticket", "1ticket", "ticket_x", "a".repeat(64), "tick et"]) {
      refusedWith("VERQ_INVALID_STREAM", () => declare({ name }));
    }
    expect(declare({ name: "a".repeat(63) }).name).toBe("a".repeat(63));
    expect(declare({ name: "t-2" }).name).toBe("t-2");
    for (const name of ["job", "guid", "message", "operator", "queue", "schedule"]) {
      refusedWith("VERQ_STREAM_TYPE_TAKEN", () => declare({ name }), new RegExp(`"${name}" is one of verq's own`));
    }
  });

  it("refuses a machine its compiled table cannot run, naming what is not supported", () => {
    const nested = setup({}).createMachine({ id: "nested", initial: "a", states: { a: { initial: "x", states: { x: {} } } } });
    refusedWith("VERQ_UNSUPPORTED_MACHINE", () => declare({ machine: nested }), /stream type "ticket": .*nested/i);
    const entry = setup({ actions: { hello: assign({}) } }).createMachine({
      id: "entry",
      initial: "a",
      states: { a: { entry: "hello" } },
    });
    refusedWith("VERQ_UNSUPPORTED_MACHINE", () => declare({ machine: entry }), /entry/i);
  });

  it("refuses an initial state the machine does not have", () => {
    refusedWith(
      "VERQ_INVALID_STREAM",
      () =>
        declare({ initial: () => ({ state: "nowhere" as Ticket["state"], title: "", holder: null, token: 0, updatedAt: 0 }) }),
      /initial state "nowhere"/,
    );
  });

  it("refuses an event version that is not a whole number from 1, and a chain of upcasters with a gap", () => {
    for (const version of [0, -1, 1.5, Number.NaN]) {
      refusedWith(
        "VERQ_INVALID_STREAM",
        () => declare({ events: { "ticket.opened": { version } } }),
        /not a whole number from 1/,
      );
    }
    refusedWith("VERQ_UPCASTER_GAP", () => declare({ events: { "ticket.opened": { version: 2 } } }), /from version 1 to 2/);
    refusedWith(
      "VERQ_UPCASTER_GAP",
      () => declare({ events: { "ticket.opened": { version: 3, upcasters: { 1: (d) => d } } } }),
      /ticket.opened .* no upcaster from version 2 to 3/,
    );
    const chained = declare({ events: { "ticket.opened": { version: 3, upcasters: { 1: (d) => d, 2: (d) => d } } } });
    expect(chained.schemaVersion("ticket.opened")).toBe(3);
    expect(chained.schemaVersion("ticket.taken")).toBe(1);
  });
});

describe("a declared stream decides with its machine and folds its events", () => {
  const opened = ticketStream.decide(ticketStream.initial("t-1"), T, { type: "open", title: "printer" });

  it("decides the first command from version 0 and numbers the state after it", () => {
    expect(ticketStream.initial("t-1")).toEqual({ id: "t-1", version: 0, state: "new", value: ticketDeclaration.initial("t-1") });
    expect(opened).toEqual({
      accepted: true,
      after: {
        id: "t-1",
        version: 1,
        state: "open",
        value: { state: "open", title: "printer", holder: null, token: 0, updatedAt: T },
      },
      events: [{ type: "ticket.opened", data: { title: "printer", at: T } }],
    });
  });

  it("decides a sequence all or nothing, and answers a refusal as data with the command refused", () => {
    if (!opened.accepted) throw new Error("refused");
    const two = ticketStream.decide(opened.after, T + 1, { type: "take", holder: "a" }, { type: "take", holder: "b" });
    expect(two.accepted && two.after).toMatchObject({ version: 3, state: "taken", value: { holder: "b", token: 2 } });
    const stale = ticketStream.decide(opened.after, T + 1, { type: "take", holder: "a" }, { type: "close", token: 7 });
    expect(stale).toEqual({ accepted: false, refusal: "stale-token", command: "close" });
    expect(ticketStream.decide(opened.after, T, { type: "close", token: 0 })).toEqual({
      accepted: false,
      refusal: "unhandled",
      command: "close",
    });
  });

  it("refuses a command type it does not declare and a command that is not plain JSON", () => {
    refusedWith(
      "VERQ_UNKNOWN_COMMAND",
      () => ticketStream.decide(ticketStream.initial("t"), T, { type: "reopen" }),
      /no command "reopen"/,
    );
    refusedWith("VERQ_INVALID_PAYLOAD", () =>
      ticketStream.decide(ticketStream.initial("t"), T, { type: "open", title: undefined as never }),
    );
    refusedWith("VERQ_INVALID_PAYLOAD", () =>
      ticketStream.decide(ticketStream.initial("t"), T, { type: "open", title: new Date() as never }),
    );
  });

  it("throws when the machine emits an event without a numeric time", () => {
    const timeless = declare({
      machine: ticketDeclaration.machine.provide({
        actions: {
          open: assign(({ context }: { context: { ticket: Ticket } }) => ({
            emitted: [{ type: "ticket.opened", data: { title: "x" } }],
            ticket: { ...context.ticket, state: "open" as const },
          })) as never,
        },
      }),
    });
    expect(() => timeless.decide(timeless.initial("t"), T, { type: "open", title: "x" })).toThrow(
      /ticket.opened has no numeric data.at/,
    );
  });

  it("folds stored events, each upcast from the version it was written with to the current one", () => {
    const v3 = declare({
      events: {
        "ticket.opened": {
          version: 3,
          upcasters: {
            1: (d) => ({ ...d, title: `${d.title as string}!` }),
            2: (d) => ({ ...d, title: `${d.title as string}?` }),
          },
        },
      },
    });
    const stored = (schemaVersion: number) => [{ type: "ticket.opened", data: { title: "p", at: T }, schemaVersion }];
    expect(v3.fold(v3.initial("t"), stored(1)).value.title).toBe("p!?");
    expect(v3.fold(v3.initial("t"), stored(2)).value.title).toBe("p?");
    expect(v3.fold(v3.initial("t"), stored(3))).toMatchObject({ version: 1, state: "open", value: { title: "p" } });
    refusedWith(
      "VERQ_EVENT_FROM_NEWER_SCHEMA",
      () => v3.fold(v3.initial("t"), stored(4)),
      /written at version 4, newer than this code's 3/,
    );
    refusedWith("VERQ_EVENT_FROM_NEWER_SCHEMA", () => ticketStream.upcast("ticket.taken", 2, {}), /newer than this code's 1/);
    expect(ticketStream.upcast("ticket.taken", 1, { holder: "a" })).toEqual({ holder: "a" });
  });

  it("keeps the holder token declared for fencing, and none when not declared", () => {
    expect(ticketStream.fencing?.token({ ...ticketDeclaration.initial("t"), token: 4 })).toBe(4);
    expect(declare({ fencing: undefined }).fencing).toBeNull();
    expect([...ticketStream.commandTypes]).toEqual(["open", "take", "close"]);
  });
});
