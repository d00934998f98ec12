import { assign, not, setup } from "xstate";

/** An order as its stream folds it: plain JSON, with the machine state in `state`. */
export type Order = {
  readonly state: "new" | "placed" | "paid" | "picking" | "shipped" | "cancelled" | "refunded";
  readonly customer: string | null;
  readonly amountCents: number;
  readonly paidCents: number;
  /** The picker holding the order for packing, and its fencing token (counted up by each pick). */
  readonly picker: string | null;
  readonly token: number;
  readonly carrier: string | null;
  readonly refundedCents: number;
  readonly updatedAt: number;
};

/** What a caller sends (the store adds the decision's time `now`). */
export type OrderCommand =
  | { readonly type: "place"; readonly customer: string; readonly amountCents: number }
  | { readonly type: "pay"; readonly paymentId: string; readonly amountCents: number }
  | { readonly type: "pick"; readonly picker: string }
  | { readonly type: "ship"; readonly token: number; readonly carrier: string }
  | { readonly type: "cancel"; readonly reason: string }
  | { readonly type: "refund"; readonly reason: string };

type Timed = OrderCommand & { readonly now: number };

/** Every fact recorded about an order. */
export type OrderEvent =
  | { readonly type: "order.placed"; readonly data: { customer: string; amountCents: number; at: number } }
  | { readonly type: "order.paid"; readonly data: { paymentId: string; amountCents: number; at: number } }
  | { readonly type: "order.picked"; readonly data: { picker: string; token: number; at: number } }
  | { readonly type: "order.shipped"; readonly data: { carrier: string; token: number; at: number } }
  | { readonly type: "order.cancelled"; readonly data: { reason: string; at: number } }
  | { readonly type: "order.refunded"; readonly data: { amountCents: number; reason: string; at: number } };

/** Why a command was refused: data, never an exception. */
export type OrderRefusal = "wrong-amount" | "bad-amount" | "stale-token" | "unhandled";

export const ORDER_COMMANDS = ["place", "pay", "pick", "ship", "cancel", "refund"] as const;

/** A new order (version 0): nothing placed yet. */
export function newOrder(): Order {
  return {
    state: "new",
    customer: null,
    amountCents: 0,
    paidCents: 0,
    picker: null,
    token: 0,
    carrier: null,
    refundedCents: 0,
    updatedAt: 0,
  };
}

/** Folds one event into an order. Pure; the machine decided the move before the event existed. */
export function evolveOrder(order: Order, event: { readonly type: string; readonly data: object }): Order {
  const e = event as OrderEvent;
  const updatedAt = e.data.at;
  switch (e.type) {
    case "order.placed":
      return { ...order, state: "placed", customer: e.data.customer, amountCents: e.data.amountCents, updatedAt };
    case "order.paid":
      return { ...order, state: "paid", paidCents: e.data.amountCents, updatedAt };
    case "order.picked":
      return { ...order, state: "picking", picker: e.data.picker, token: e.data.token, updatedAt };
    case "order.shipped":
      return { ...order, state: "shipped", carrier: e.data.carrier, picker: null, updatedAt };
    case "order.cancelled":
      return { ...order, state: "cancelled", picker: null, updatedAt };
    case "order.refunded":
      return { ...order, state: "refunded", picker: null, refundedCents: e.data.amountCents, updatedAt };
    default:
      throw new Error(`not an order event: ${(event as { type: string }).type}`);
  }
}

interface OrderContext {
  readonly order: Order;
  readonly emitted: readonly OrderEvent[];
  readonly refusal: OrderRefusal | null;
}

const record = (context: OrderContext, ...events: OrderEvent[]): Partial<OrderContext> => ({
  order: events.reduce(evolveOrder, context.order),
  emitted: [...context.emitted, ...events],
});

/**
 * An order's lifecycle in verq's deciding style: every rule is a guard, each accepted transition
 * emits its events (folded into `context.order` with {@link evolveOrder}), and a refusal is data.
 *
 * new → placed (place, a positive amount) → paid (pay, exactly the amount) → picking (pick: a
 * picker takes the order, the token counts up; another pick takes it over from a picker that
 * stalled) → shipped (ship, only with the current picker's token). Before shipping, cancel ends a
 * placed order (cancelled) and refunds a paid one (cancelled, then refunded); a shipped order is
 * refunded on request.
 */
export const orderMachine = setup({
  types: { context: {} as OrderContext, events: {} as Timed, input: {} as Order },
  guards: {
    positiveAmount: ({ event }) => event.type === "place" && Number.isSafeInteger(event.amountCents) && event.amountCents > 0,
    paysInFull: ({ context, event }) => event.type === "pay" && event.amountCents === context.order.amountCents,
    tokenMatches: ({ context, event }) => event.type === "ship" && event.token === context.order.token,
  },
  actions: {
    refuse: assign((_, params: { refusal: OrderRefusal }) => ({ refusal: params.refusal })),
    place: assign(({ context, event }) =>
      event.type === "place"
        ? record(context, {
            type: "order.placed",
            data: { customer: event.customer, amountCents: event.amountCents, at: event.now },
          })
        : {},
    ),
    pay: assign(({ context, event }) =>
      event.type === "pay"
        ? record(context, {
            type: "order.paid",
            data: { paymentId: event.paymentId, amountCents: event.amountCents, at: event.now },
          })
        : {},
    ),
    pick: assign(({ context, event }) =>
      event.type === "pick"
        ? record(context, { type: "order.picked", data: { picker: event.picker, token: context.order.token + 1, at: event.now } })
        : {},
    ),
    ship: assign(({ context, event }) =>
      event.type === "ship"
        ? record(context, { type: "order.shipped", data: { carrier: event.carrier, token: event.token, at: event.now } })
        : {},
    ),
    cancel: assign(({ context, event }) =>
      event.type === "cancel" ? record(context, { type: "order.cancelled", data: { reason: event.reason, at: event.now } }) : {},
    ),
    cancelAndRefund: assign(({ context, event }) =>
      event.type === "cancel"
        ? record(
            context,
            { type: "order.cancelled", data: { reason: event.reason, at: event.now } },
            { type: "order.refunded", data: { amountCents: context.order.paidCents, reason: event.reason, at: event.now } },
          )
        : {},
    ),
    refund: assign(({ context, event }) =>
      event.type === "refund"
        ? record(context, {
            type: "order.refunded",
            data: { amountCents: context.order.paidCents, reason: event.reason, at: event.now },
          })
        : {},
    ),
  },
}).createMachine({
  id: "order",
  context: ({ input }) => ({ order: input, emitted: [], refusal: null }),
  initial: "new",
  states: {
    new: {
      on: {
        place: [
          { guard: not("positiveAmount"), actions: { type: "refuse", params: { refusal: "bad-amount" } } },
          { target: "placed", actions: "place" },
        ],
      },
    },
    placed: {
      on: {
        pay: [
          { guard: not("paysInFull"), actions: { type: "refuse", params: { refusal: "wrong-amount" } } },
          { target: "paid", actions: "pay" },
        ],
        cancel: { target: "cancelled", actions: "cancel" },
      },
    },
    paid: {
      on: {
        pick: { target: "picking", actions: "pick" },
        cancel: { target: "refunded", actions: "cancelAndRefund" },
      },
    },
    picking: {
      on: {
        // A picker that stalled is taken over: the new pick's token fences the old picker out.
        pick: { target: "picking", reenter: true, actions: "pick" },
        ship: [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { target: "shipped", actions: "ship" },
        ],
        cancel: { target: "refunded", actions: "cancelAndRefund" },
      },
    },
    shipped: {
      on: { refund: { target: "refunded", actions: "refund" } },
    },
    cancelled: {},
    refunded: {},
  },
});
