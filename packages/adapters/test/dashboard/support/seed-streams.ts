import { defineStream, ManualClock } from "@verq/core";
import { declareStream, type VerqStore } from "@verq/store";
import { ticketDeclaration, ticketStream } from "../../../../core/test/ticket-stream.ts";

/** A ticket id that is markup: the pages must show it as text. */
export const MARKUP_TICKET = `<b>t</b>&'"`;

/** A ticket title that is markup: its stream page must show it as text. */
export const MARKUP_TITLE = `<script>alert("x")</script>`;

/** When the first ticket command was decided. */
export const T0 = Date.UTC(2026, 1, 2, 10, 0, 0);

/** What {@link seedTickets} wrote: each ticket's state, version and token, latest update first. */
export const TICKETS = {
  /** Opened, taken by bob, closed with bob's token 1. */
  closed: { id: "t-3", state: "closed", version: 3, token: 1 },
  /** Opened with a title that is markup: its id is markup too. */
  markup: { id: MARKUP_TICKET, state: "open", version: 1, token: 0 },
  /** Opened, taken by ann (token 1), taken over by carl (token 2). */
  takenTwice: { id: "t-4", state: "taken", version: 3, token: 2 },
  /** Opened ("printer"), taken by ann (token 1). */
  taken: { id: "t-1", state: "taken", version: 2, token: 1 },
  /** Streams in each state of the ticket machine. */
  byState: { new: 0, open: 1, taken: 2, closed: 1 },
} as const;

/**
 * The ticket after a change of its `ticket.opened` event: version 2 adds an urgency, and the
 * upcaster gives the events written at version 1 the urgency "normal".
 */
export const ticketStreamV2 = defineStream({
  ...ticketDeclaration,
  events: { "ticket.opened": { version: 2, upcasters: { 1: (data) => ({ ...data, urgency: "normal" }) } } },
});

/**
 * Writes four tickets through `declareStream` on a manual clock, a minute apart (t-1, t-4, the
 * markup ticket, t-3 last), so that the order of their last updates is known.
 */
export async function seedTickets(store: VerqStore): Promise<ManualClock> {
  const clock = new ManualClock(T0);
  const tickets = declareStream(store, ticketStream, { clock });
  const step = () => clock.advance(60_000);
  const accepted = async (id: string, commands: Parameters<typeof tickets.handle>[1]) => {
    const result = await tickets.handle(id, commands);
    if (!result.accepted) throw new Error(`ticket ${id}: ${result.refusal}`);
    step();
  };
  await accepted("t-1", [
    { type: "open", title: "printer" },
    { type: "take", holder: "ann" },
  ]);
  await accepted("t-4", [
    { type: "open", title: "mail" },
    { type: "take", holder: "ann" },
    { type: "take", holder: "carl" },
  ]);
  await accepted(MARKUP_TICKET, { type: "open", title: MARKUP_TITLE });
  await accepted("t-3", [
    { type: "open", title: "vpn" },
    { type: "take", holder: "bob" },
    { type: "close", token: 1 },
  ]);
  return clock;
}
