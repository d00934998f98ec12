import { defineStream } from "@verq/core";
import { ORDER_COMMANDS, evolveOrder, newOrder, orderMachine, type Order, type OrderRefusal } from "./order.machine.ts";

/**
 * The order lifecycle declared as a verq stream: the store decides every command with
 * {@link orderMachine}, appends its events under UNIQUE(stream, version), and keeps the
 * projection in the same transaction. Fencing: the picker's token.
 */
export const orderStream = defineStream<Order, OrderRefusal>({
  name: "order",
  machine: orderMachine,
  field: "order",
  initial: newOrder,
  evolve: evolveOrder,
  commands: ORDER_COMMANDS,
  unhandled: "unhandled",
  fencing: { token: (order) => order.token },
});
