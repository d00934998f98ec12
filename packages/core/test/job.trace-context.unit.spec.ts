import { describe, expect, it } from "vitest";
import { decideJob, foldJob, jobCommands, newJob, type Job, type JobDecision, type TraceContext } from "../src/index.ts";

const TRACE: TraceContext = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "congo=t61rcWkgMzE",
};

const enqueue = (traceContext?: TraceContext) =>
  jobCommands.enqueue({
    payload: { quantity: 7 },
    maxAttempts: 3,
    deadline: 61_000,
    availableAt: 1_000,
    orderingKey: null,
    ...(traceContext === undefined ? {} : { traceContext }),
    now: 1_000,
  });

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

describe("a job's trace context", () => {
  it("is written into job.enqueued as the enqueue gave it, and folded into the job", () => {
    const decision = decideJob(newJob("order-1"), enqueue(TRACE));
    if (!decision.accepted) throw new Error(decision.refusal);
    expect(decision.events.map((e) => e.data)).toEqual([expect.objectContaining({ traceContext: TRACE })]);
    expect(decision.after.traceContext).toEqual(TRACE);
    expect(foldJob(decision.events)).toEqual(decision.after);
  });

  it("is absent, in the event and the job, for an enqueue outside any trace", () => {
    const decision = decideJob(newJob("order-1"), enqueue());
    if (!decision.accepted) throw new Error(decision.refusal);
    expect(decision.events[0]?.data).not.toHaveProperty("traceContext");
    expect(decision.after).not.toHaveProperty("traceContext");
  });

  it("is no rule: a repeated enqueue in another trace is the same job (already-enqueued), and claims ignore it", () => {
    const job = accepted(decideJob(newJob("order-1"), enqueue(TRACE)));
    expect(decideJob(job, enqueue())).toMatchObject({ accepted: false, refusal: "already-enqueued" });
    const claimed = accepted(decideJob(job, jobCommands.claim({ owner: "w", leaseMs: 1_000, now: 1_000 })));
    expect(claimed).toMatchObject({ state: "leased", token: 1, traceContext: TRACE });
  });
});
