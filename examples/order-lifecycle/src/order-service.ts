import { declareStream, type VerqStore } from "@verq/store";
import Fastify from "fastify";
import { MAX_BODY_BYTES, registerOrderRoutes } from "./order-routes.ts";
import { orderStream } from "./order.stream.ts";

/** Where the service runs: over an open store, on a host and port (0 picks a free one). */
export interface OrderLifecycleServiceOptions {
  readonly store: VerqStore;
  readonly host?: string;
  readonly port?: number;
}

/** A running order-lifecycle service. */
export interface OrderLifecycleService {
  /** Where it listens, e.g. `http://127.0.0.1:3001`. */
  readonly url: string;
  /** Stops listening once the requests in flight are answered. The store stays open: it is the caller's. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Declares the order stream on `store` and serves its API (see `registerOrderRoutes`) on `host`
 * (127.0.0.1 unless told) and `port`. Every decision is the stream's: the machine decides, the
 * store appends the events and the projection in one transaction, on SQLite and PostgreSQL alike.
 * Nothing is logged but the route and code of a failure.
 */
export async function createOrderLifecycleService(options: OrderLifecycleServiceOptions): Promise<OrderLifecycleService> {
  const orders = declareStream(options.store, orderStream);
  // Ids are up to 256 characters: a longer path parameter reaches the handler and is refused there.
  const app = Fastify({ logger: false, bodyLimit: MAX_BODY_BYTES, routerOptions: { maxParamLength: 2_048 } });
  registerOrderRoutes(app, orders);
  let url: string;
  try {
    url = await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return { url, close: () => (closing ??= app.close()) };
}
