import { JobQueue, openStore, type JobWorkerReport, type VerqStore } from "@verq/store";
import Fastify from "fastify";
import { createChargeWorker } from "./charge-worker.ts";
import { ordersRoutes } from "./orders-routes.ts";
import { paymentProvider } from "./payment-provider.ts";
import type { ServiceOptions } from "./service-options.ts";
import { createServiceTables } from "./service-tables.ts";

/** A running orders service. */
export interface OrdersService {
  /** Where it listens, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly store: VerqStore;
  /**
   * Stops the worker (the charges in hand are sent and recorded), then the HTTP server, then
   * the store; resolves with what the worker did. Safe to call twice.
   */
  close(): Promise<JobWorkerReport>;
}

/**
 * Opens the store, creates the service's tables beside verq's, mounts the orders API at
 * `/orders` and the payment provider at `/payments`, listens, and starts the charge worker.
 * Whatever was enqueued and not delivered before a crash is delivered once it runs.
 */
export async function startOrdersService(options: ServiceOptions): Promise<OrdersService> {
  const store = await openStore({ path: options.db });
  const app = Fastify({ logger: false });
  let url: string;
  let queue: JobQueue;
  try {
    await createServiceTables(store);
    queue = new JobQueue(store, { defaultLeaseMs: options.leaseMs });
    await app.register(ordersRoutes, { prefix: "/orders", store, queue });
    await app.register(paymentProvider, { prefix: "/payments", store });
    url = await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    await store.close();
    throw error;
  }
  const worker = createChargeWorker(queue, { url: `${url}/payments`, owner: `orders-${process.pid}` });
  worker.start();

  let closing: Promise<JobWorkerReport> | null = null;
  const close = async (): Promise<JobWorkerReport> => {
    try {
      // The worker first: the charges it holds go to the provider mounted in this very app.
      return await worker.stop();
    } finally {
      await app.close();
      await store.close();
    }
  };
  return {
    url,
    store,
    close: () => (closing ??= close()),
  };
}
