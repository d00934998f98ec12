import { failpoint } from "@verq/adapters/failpoints";
import { createHttpSender } from "@verq/adapters/http";
import { JobWorker, type JobQueue } from "@verq/store";

/** Where and as whom the charge worker delivers. */
export interface ChargeWorkerOptions {
  /** The payment provider's receiver endpoint. */
  readonly url: string;
  /** Who holds the leases: one name per process. */
  readonly owner: string;
}

/**
 * A {@link JobWorker} that delivers charge jobs to the payment provider over HTTP, each with
 * its job id as the `Idempotency-Key`. The send is followed by the `job.afterSend` failpoint,
 * the boundary where the provider has committed the charge and the job is not yet finished
 * (docs/failpoints.md): a crash there makes the next claim, with the next token, send again.
 */
export function createChargeWorker(queue: JobQueue, options: ChargeWorkerOptions): JobWorker {
  const deliver = createHttpSender({ url: options.url, timeoutMs: 5_000 });
  return new JobWorker(queue, {
    owner: options.owner,
    sender: async (job) => {
      const delivered = await deliver(job);
      failpoint("job.afterSend");
      return delivered;
    },
    concurrency: 4,
    batchSize: 8,
    // Failures are logged with ids only; the jobs stay leased and are claimed again after their lease.
    onSendError: (job, error) => console.error(`charge ${job.id} token ${job.token} not delivered: ${describe(error)}`),
    onError: (error) => console.error(`charge worker round failed, retrying: ${describe(error)}`),
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
