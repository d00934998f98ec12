import { assign, not, setup } from "xstate";
import { defineStream, type StreamDeclaration } from "../src/index.ts";

/** A help-desk ticket: the smallest declared stream with a holder token. */
export type Ticket = {
  readonly state: "new" | "open" | "taken" | "closed";
  readonly title: string;
  readonly holder: string | null;
  readonly token: number;
  readonly updatedAt: number;
};

export type TicketRefusal = "stale-token" | "empty-title" | "unhandled";

type TicketEvent =
  | { readonly type: "ticket.opened"; readonly data: { title: string; at: number } }
  | { readonly type: "ticket.taken"; readonly data: { holder: string; token: number; at: number } }
  | { readonly type: "ticket.closed"; readonly data: { token: number; at: number } };

type TicketCommand =
  | { readonly type: "open"; readonly title: string; readonly now: number }
  | { readonly type: "take"; readonly holder: string; readonly now: number }
  | { readonly type: "close"; readonly token: number; readonly now: number };

export const newTicket = (): Ticket => ({ state: "new", title: "", holder: null, token: 0, updatedAt: 0 });

export function evolveTicket(ticket: Ticket, event: { readonly type: string; readonly data: object }): Ticket {
  const e = event as TicketEvent;
  switch (e.type) {
    case "ticket.opened":
      return { ...ticket, state: "open", title: e.data.title, updatedAt: e.data.at };
    case "ticket.taken":
      return { ...ticket, state: "taken", holder: e.data.holder, token: e.data.token, updatedAt: e.data.at };
    case "ticket.closed":
      return { ...ticket, state: "closed", holder: null, updatedAt: e.data.at };
    default:
      throw new Error(`not a ticket event: ${(event as { type: string }).type}`);
  }
}

interface TicketContext {
  readonly ticket: Ticket;
  readonly emitted: readonly TicketEvent[];
  readonly refusal: TicketRefusal | null;
}

const record = (context: TicketContext, event: TicketEvent): Partial<TicketContext> => ({
  ticket: evolveTicket(context.ticket, event),
  emitted: [...context.emitted, event],
});

/** new → open (a title) → taken (each take counts the token up) → closed (only with the holder's token). */
export const ticketMachine = setup({
  types: { context: {} as TicketContext, events: {} as TicketCommand, input: {} as Ticket },
  guards: {
    hasTitle: ({ event }) => event.type === "open" && event.title.length > 0,
    tokenMatches: ({ context, event }) => event.type === "close" && event.token === context.ticket.token,
  },
  actions: {
    refuse: assign((_, params: { refusal: TicketRefusal }) => ({ refusal: params.refusal })),
    open: assign(({ context, event }) =>
      event.type === "open" ? record(context, { type: "ticket.opened", data: { title: event.title, at: event.now } }) : {},
    ),
    take: assign(({ context, event }) =>
      event.type === "take"
        ? record(context, {
            type: "ticket.taken",
            data: { holder: event.holder, token: context.ticket.token + 1, at: event.now },
          })
        : {},
    ),
    close: assign(({ context, event }) =>
      event.type === "close" ? record(context, { type: "ticket.closed", data: { token: event.token, at: event.now } }) : {},
    ),
  },
}).createMachine({
  id: "ticket",
  context: ({ input }) => ({ ticket: input, emitted: [], refusal: null }),
  initial: "new",
  states: {
    new: {
      on: {
        open: [
          { guard: not("hasTitle"), actions: { type: "refuse", params: { refusal: "empty-title" } } },
          { target: "open", actions: "open" },
        ],
      },
    },
    open: { on: { take: { target: "taken", actions: "take" } } },
    taken: {
      on: {
        take: { target: "taken", reenter: true, actions: "take" },
        close: [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { target: "closed", actions: "close" },
        ],
      },
    },
    closed: {},
  },
});

/** The ticket's declaration; tests vary one part of it. */
export const ticketDeclaration: StreamDeclaration<Ticket, TicketRefusal> = {
  name: "ticket",
  machine: ticketMachine,
  field: "ticket",
  initial: newTicket,
  evolve: evolveTicket,
  commands: ["open", "take", "close"],
  unhandled: "unhandled",
  fencing: { token: (ticket) => ticket.token },
};

export const ticketStream = defineStream(ticketDeclaration);
