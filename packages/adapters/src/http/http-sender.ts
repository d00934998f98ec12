import { BadAck, Permanent, Retryable } from "@verq/core";
import type { ClaimedJob } from "@verq/store";

/** Where and how an HTTP sender delivers jobs. */
export interface HttpSenderOptions {
  /** The receiving endpoint; each job is POSTed here. */
  readonly url: string;
  /** Give up waiting for an answer after this long (a `Retryable`): 10 s by default. */
  readonly timeoutMs?: number;
}

/**
 * A job sender over HTTP (docs/architecture.md, "Edges"). POSTs the job's payload as JSON with the job id as
 * the `Idempotency-Key` header (and its fencing token as `Verq-Fencing-Token`). Classification:
 * - a 2xx whose body is a JSON object with `"ok": true` (the boolean) → `true`;
 * - any other 2xx body → `BadAck` (propagates; the job stays leased);
 * - 408, 429, 5xx, a timeout or a network error → `Retryable`;
 * - any other status (other 4xx, a redirect) → `Permanent`.
 */
export function createHttpSender(options: HttpSenderOptions): (job: ClaimedJob) => Promise<true> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (job: ClaimedJob): Promise<true> => {
    let response: Response;
    try {
      response = await fetch(options.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "idempotency-key": job.id,
          "verq-fencing-token": String(job.token),
        },
        body: JSON.stringify(job.payload),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new Retryable("the receiver did not answer (network error or timeout); the job will be retried", { cause: error });
    }
    const status = response.status;
    const text = await response.text().catch(() => "");
    if (status >= 200 && status < 300) {
      const body = parseJson(text);
      if (typeof body === "object" && body !== null && (body as { ok?: unknown }).ok === true) return true;
      throw new BadAck(body);
    }
    // The status rides on the cause, so that the job's recorded failure names it.
    const cause = new HttpStatusError(status);
    if (status === 408 || status === 429 || status >= 500) {
      throw new Retryable(`the receiver answered HTTP ${status}; the job will be retried`, { cause });
    }
    throw new Permanent(`the receiver answered HTTP ${status}; retrying cannot fix that`, { cause });
  };
}

/** An answer with a status that is not success: the cause of the sender's `Retryable` or `Permanent`. */
export class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
    this.name = "HttpStatusError";
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
