import fc from "fast-check";
import { canonicalJson, jobCommands, type JsonValue } from "@verq/core";
import { checkDecided, decideInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import { expectVerqError } from "./expect-verq-error.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { DRAWN_KINDS, DRAWN_QUEUES, JOB_IDS, JOB_PRIORITIES, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/**
 * J2: enqueues `id` into a queue with a priority, of a kind or none. A new id is created pending;
 * an existing id with the same payload (keys in any order), queue, priority and kind is a no-op
 * whatever the other fields; with a different payload, queue, priority or kind it throws
 * `VERQ_ENQUEUE_CONFLICT` and changes nothing. An id whose job was pruned is never a new job again: whatever the payload,
 * `VERQ_JOB_ARCHIVED`, and nothing changes.
 */
export class EnqueueCommand implements JobsCommand {
  constructor(
    readonly id: string,
    readonly sku: string,
    readonly qty: number,
    readonly qtyFirst: boolean,
    readonly maxAttempts: number,
    readonly deadlineInMs: number,
    readonly availableInMs: number,
    readonly queue: string,
    readonly priority: number,
    readonly kind: string | null,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        id: fc.constantFrom(...JOB_IDS),
        sku: fc.constantFrom("A", "B"),
        qty: fc.constantFrom(7, 8),
        qtyFirst: fc.boolean(),
        maxAttempts: fc.integer({ min: 1, max: 3 }),
        deadlineInMs: fc.integer({ min: 1, max: 250 }),
        availableInMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
        queue: fc.constantFrom(...DRAWN_QUEUES),
        priority: fc.constantFrom(...JOB_PRIORITIES),
        kind: fc.constantFrom(...DRAWN_KINDS),
      })
      .map(
        (c) =>
          new EnqueueCommand(
            c.id,
            c.sku,
            c.qty,
            c.qtyFirst,
            c.maxAttempts,
            c.deadlineInMs,
            c.availableInMs,
            c.queue,
            c.priority,
            c.kind,
          ),
      );
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const payload = this.qtyFirst ? { qty: this.qty, sku: this.sku } : { sku: this.sku, qty: this.qty };
    // One job per id: the same payload in the same queue with the same priority and kind, else a conflict.
    const payloadKey = `${this.sku}x${this.qty}@${this.queue}/${this.priority}:${this.kind}`;
    const input = {
      id: this.id,
      payload,
      maxAttempts: this.maxAttempts,
      deadline: m.now + this.deadlineInMs,
      availableAt: m.now + this.availableInMs,
      queue: this.queue,
      priority: this.priority,
      ...(this.kind === null ? {} : { kind: this.kind }),
    };
    const jobs = await jobsBefore(r);
    const command = jobCommands.enqueue({
      ...input,
      payload: JSON.parse(canonicalJson(payload)) as JsonValue,
      orderingKey: null,
      now: m.now,
    });
    const existing = m.jobs.get(this.id);
    if (m.archive.has(this.id)) {
      const before = await storeSnapshot(r);
      await expectVerqError("prune archived id", "VERQ_JOB_ARCHIVED", () => r.queue.enqueue(input));
      modelEqual("prune archived id", `an enqueue of archived ${this.id} changed the store`, await storeSnapshot(r), before);
    } else if (existing === undefined) {
      const result = await r.queue.enqueue(input);
      const expected = m.enqueued(input);
      modelEqual("J2 enqueue", `enqueue of new ${this.id}`, result, { created: true, job: expected });
      m.jobs.set(this.id, expected);
      m.payloadKeys.set(this.id, payloadKey);
      m.windows.set(this.id, this.deadlineInMs);
    } else {
      const before = await storeSnapshot(r);
      if (m.payloadKeys.get(this.id) === payloadKey) {
        const result = await r.queue.enqueue(input);
        modelEqual("J2 enqueue", `re-enqueue of ${this.id} with the same payload`, result, { created: false, job: existing });
      } else {
        await expectVerqError("J2 conflict", "VERQ_ENQUEUE_CONFLICT", () => r.queue.enqueue(input));
      }
      modelEqual("J2 enqueue", `re-enqueue of ${this.id} changed the store`, await storeSnapshot(r), before);
    }
    await checkDecided(r, "enqueue", jobs, decideInOrder(jobs, [{ id: this.id, command: () => command }]));
    await checkInvariants(m, r);
  }

  toString(): string {
    return `enqueue(${this.id}, ${this.sku}x${this.qty}, max=${this.maxAttempts}, deadline=+${this.deadlineInMs}, at=+${this.availableInMs}, ${this.queue}, priority=${this.priority}, kind=${this.kind})`;
  }
}
