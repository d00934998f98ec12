import { receiverPlugin } from "@verq/adapters/http";
import { ReceiptBook, type ReceiverCounts, type VerqStore } from "@verq/store";
import type { FastifyPluginAsync } from "fastify";
import { chargeEffect } from "./charge-effect.ts";
import type { ServiceTables } from "./service-tables.ts";

/** Options of {@link paymentProvider}. */
export interface PaymentProviderOptions {
  readonly store: VerqStore;
}

/** What the provider saw: receiver requests (repeats included), effects applied, charge rows. */
export interface PaymentCounts extends ReceiverCounts {
  readonly charges: number;
}

/**
 * The payment provider this example charges, mounted in the service's own app: verq's
 * idempotent receiver at `POST {prefix}/` with {@link chargeEffect}, and `GET {prefix}/counts`
 * with what it saw. A real service would deliver to a provider elsewhere; the worker and the
 * receiver only meet over HTTP either way.
 */
export const paymentProvider: FastifyPluginAsync<PaymentProviderOptions> = async (app, { store }) => {
  await app.register(receiverPlugin, { store, effect: chargeEffect });
  const book = new ReceiptBook(store);
  app.get("/counts", async (): Promise<PaymentCounts> => {
    const counts = await book.counts();
    const row = await store.db
      .withTables<ServiceTables>()
      .selectFrom("charges")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return { ...counts, charges: Number(row.n) };
  });
};
