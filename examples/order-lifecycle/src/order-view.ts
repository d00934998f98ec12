import type { DeclaredStreamState, JsonObject } from "@verq/core";
import type { StoredEvent } from "@verq/store";
import type { Order } from "./order.machine.ts";

/** An order as the API shows it: its id and version beside the fields its stream folds. */
export type OrderView = Order & { readonly id: string; readonly version: number };

/** One recorded event of an order, as `GET /orders/:id/events` shows it. */
export interface OrderEventView {
  readonly version: number;
  readonly type: string;
  readonly data: JsonObject;
  /** When the event was decided, in ms since the epoch. */
  readonly at: number;
  readonly schemaVersion: number;
}

/** The view of an order's stream state (its `state` is the machine's state, the same as the stream's). */
export function orderView(stream: DeclaredStreamState<Order>): OrderView {
  return { id: stream.id, version: stream.version, ...stream.value };
}

/** The view of one stored event of an order. */
export function eventView(event: StoredEvent<JsonObject>): OrderEventView {
  return { version: event.version, type: event.type, data: event.data, at: event.at, schemaVersion: event.schemaVersion };
}
