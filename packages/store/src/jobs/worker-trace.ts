import type { JobFailure, SendVerdict } from "@verq/core";
import { verqTracing, type SpanAttributes, type TraceParent, type VerqSpan } from "../verq-tracing.ts";
import type { ClaimedJob } from "./claim-jobs.ts";
import { heldKey, type PendingRecord } from "./job-worker-options.ts";

/** A failure's identifiers as span attributes: its category, class, code and HTTP status, never its message. */
function failureAttributes(failure: JobFailure | null): SpanAttributes {
  if (failure === null) return {};
  return {
    "verq.failure.category": failure.category,
    "verq.failure.class": failure.errorClass,
    "verq.failure.code": failure.code,
    "verq.failure.http_status": failure.status,
  };
}

/**
 * The spans of a `JobWorker`: `verq.job.handle` around each claimed job's handler, a child of the
 * trace context stored with the job (so a job continues the trace it was enqueued in), and
 * `verq.job.finish` for each outcome a round records, a child of that job's handle span, from
 * the round's start to its commit. Observation only: what the worker decides never depends on it.
 */
export class WorkerTrace {
  readonly #tracing = verqTracing();
  /** The handle spans of the outcomes not recorded yet, by `heldKey`. */
  readonly #handled = new Map<string, TraceParent>();

  /** Starts the handle span of a job just claimed (its attempt is the claim's). */
  handle(job: ClaimedJob): VerqSpan {
    if (!this.#tracing.installed) return this.#tracing.start("", {});
    return this.#tracing.start(
      "verq.job.handle",
      {
        "verq.job.id": job.id,
        "verq.job.token": job.token,
        "verq.job.attempt": job.attempts,
        "verq.job.queue": job.queue,
        "verq.job.kind": job.kind,
      },
      { parent: this.#tracing.extract(job.traceContext), kind: "consumer" },
    );
  }

  /**
   * Ends a handle span with what the handler came to: `ok`, or failed (`retry`, `permanent`, or
   * `failed` for an error the handler let through) with the failure's identifiers.
   */
  handled(job: ClaimedJob, span: VerqSpan, verdict: SendVerdict): void {
    if (!span.recording) return span.end();
    const outcome = "error" in verdict ? "failed" : verdict.outcome;
    span.set({ "verq.job.outcome": outcome });
    if (verdict.failure !== null)
      span.fail(verdict.failure.code ?? verdict.failure.errorClass, failureAttributes(verdict.failure));
    span.end();
    this.#handled.set(heldKey(job.id, job.token), span.parent);
  }

  /**
   * Records a finish span for each outcome a round recorded, `accepted` by the store or not, from
   * `startTime` to now, under the outcome's handle span.
   */
  finished(outcomes: readonly PendingRecord[], accepted: readonly boolean[], startTime: number): void {
    // Only the outcomes whose handle span was recorded get a finish span: none without an SDK.
    if (this.#handled.size === 0) return;
    outcomes.forEach((record, i) => {
      const key = heldKey(record.id, record.token);
      const parent = this.#handled.get(key);
      if (parent === undefined) return;
      this.#handled.delete(key);
      const span = this.#tracing.start(
        "verq.job.finish",
        {
          "verq.job.id": record.id,
          "verq.job.token": record.token,
          "verq.job.outcome": record.outcome,
          "verq.job.accepted": accepted[i] === true,
        },
        { parent, startTime },
      );
      span.end();
    });
  }

  /** Forgets the handle spans of outcomes that will not be recorded (a run that ended without them). */
  forget(): void {
    this.#handled.clear();
  }
}
