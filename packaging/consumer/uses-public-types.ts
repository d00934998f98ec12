// Type-checked with moduleResolution nodenext against the installed packages' declarations
// (skipLibCheck off, so every declaration file verq ships is checked too). Never run.
import { isVerqError, Retryable, type FinishOutcome, type Job, type VerqErrorCode } from "@verq/core";
import {
  JobQueue,
  JobWorker,
  GuidLedger,
  openStore,
  type ClaimedJob,
  type EnqueueOptions,
  type EnqueueResult,
  type JobStats,
  type VerqStore,
} from "@verq/store";
import {
  createHttpCoreClient,
  createHttpSender,
  receiverPlugin,
  relayPlugin,
  type CoreClient,
  type ReceiverEffect,
  type ReceiverRequest,
} from "@verq/adapters";
import Fastify, { type FastifyInstance } from "fastify";

interface OrderRow {
  id: string;
  amount: number;
}

export async function placeOrder(store: VerqStore, queue: JobQueue, order: OrderRow): Promise<EnqueueResult> {
  return store.transaction(async (trx) => {
    await trx.withTables<{ orders: OrderRow }>().insertInto("orders").values(order).execute();
    const options: EnqueueOptions = { trx };
    return queue.enqueue({ id: `charge-${order.id}`, payload: { orderId: order.id }, maxAttempts: 5 }, options);
  });
}

export async function work(path: string): Promise<JobStats> {
  const store = await openStore({ path, journalMode: "wal" });
  const queue = new JobQueue(store, { defaultLeaseMs: 30_000 });
  const sender = createHttpSender({ url: "http://127.0.0.1:8080/deliver" });
  const worker = new JobWorker(queue, { owner: "worker-1", sender, concurrency: 4 });
  worker.start();
  await worker.stop();
  const job: ClaimedJob | null = await queue.claim("worker-2");
  if (job !== null) {
    const outcome: FinishOutcome = "retry";
    const accepted: boolean = await queue.finish(job.id, job.token, outcome);
    void accepted;
  }
  const known: Job | null = await queue.get("charge-1");
  void known;
  try {
    throw new Retryable();
  } catch (error) {
    const code: VerqErrorCode | undefined = isVerqError(error) ? error.code : undefined;
    void code;
  }
  const stats = await queue.stats();
  await store.close();
  return stats;
}

// The edges, mounted in the service's own Fastify app.
export async function buildApp(store: VerqStore): Promise<FastifyInstance> {
  const app = Fastify();
  app.get("/health", async () => ({ ok: true }));
  const effect: ReceiverEffect = async (trx, request: ReceiverRequest) => {
    await trx.withTables<{ payments: { key: string } }>().insertInto("payments").values({ key: request.key }).execute();
  };
  await app.register(receiverPlugin, { prefix: "/payments", store, effect });
  const ledger = new GuidLedger(store);
  const core: CoreClient = createHttpCoreClient({ url: "http://127.0.0.1:9090" });
  await app.register(relayPlugin, { prefix: "/relay", ledger, core });
  return app;
}
