import type fc from "fast-check";
import type { Clock, CoreCallResult, CoreInquiryResult } from "@verq/core";
import type { CoreClient } from "@verq/adapters/relay";
import { TestBank } from "@verq/testing";
import { MIN_AGE_MS, type CoreFate } from "./relay-scenario.ts";

interface InFlight {
  readonly guid: string;
  readonly deadline: number;
  readonly process: () => void;
}

const never = new Promise<never>(() => {});

/**
 * The core of the property runs: the same non-idempotent {@link TestBank} as the HTTP test
 * core, reached in-process, with every step an arbitrary point in the scheduler's order:
 * - `refuse`: the call fails as certainly not sent, and nothing is processed;
 * - `lose-request`: the request never gets processed; the relay times out;
 * - `slow`: the core takes its longest processing time: the relay times out, and the request
 *   is processed only when the clock reaches its deadline;
 * - `answer`, `drop-answer`, `invalid-answer`: the core processes the request at a scheduled
 *   moment, and the answer arrives (valid, never, or invalid) — unless the relay's timeout,
 *   also scheduled, comes first. A slow core may process after the relay gave up.
 *
 * Time: a request is processed at the latest `MIN_AGE_MS` after it arrived (the core's longest
 * processing time): moving the clock past that deadline processes it first ({@link settleDue}).
 */
export class ScheduledCore implements CoreClient {
  readonly bank = new TestBank();
  readonly #s: fc.Scheduler;
  readonly #clock: Clock;
  readonly #fates: readonly CoreFate[];
  readonly #inquiryFailures: readonly boolean[];
  readonly #inFlight = new Set<InFlight>();
  #calls = 0;
  #inquiries = 0;
  /** Set for the final settling: inquiries always answer. */
  reliableInquiries = false;

  constructor(s: fc.Scheduler, clock: Clock, fates: readonly CoreFate[], inquiryFailures: readonly boolean[]) {
    this.#s = s;
    this.#clock = clock;
    this.#fates = fates;
    this.#inquiryFailures = inquiryFailures;
  }

  async transfer(guid: string, request: string): Promise<CoreCallResult> {
    const n = this.#calls++;
    const fate = this.#fates[n % this.#fates.length] ?? "answer";
    const label = `core call #${n} ${guid} (${fate})`;
    if (fate === "refuse") {
      await this.#s.schedule(Promise.resolve(), `${label}: connection refused`);
      return { kind: "not-sent", reason: "ECONNREFUSED" };
    }
    // Two scheduler steps, so that an answer (processing, then delivery) has a fair chance to come first.
    const timeout = this.#s
      .schedule(Promise.resolve(), `${label}: relay keeps waiting`)
      .then(() =>
        this.#s.schedule(
          Promise.resolve<CoreCallResult>({ kind: "no-answer", reason: "TimeoutError" }),
          `${label}: relay times out`,
        ),
      );
    if (fate === "lose-request") return timeout;
    let answer: string | null = null;
    const inFlight: InFlight = {
      guid,
      deadline: this.#clock.now() + MIN_AGE_MS,
      process: () => {
        if (!this.#inFlight.delete(inFlight)) return;
        answer = this.bank.process(request);
      },
    };
    this.#inFlight.add(inFlight);
    if (fate === "slow") return timeout;
    const answered = this.#s.schedule(Promise.resolve(), `${label}: core processes`).then(() => {
      inFlight.process();
      if (fate === "drop-answer" || answer === null) return never;
      const body = fate === "invalid-answer" ? JSON.stringify({ status: "ok" }) : answer;
      return this.#s.schedule(
        Promise.resolve<CoreCallResult>({ kind: "answered", status: 200, body }),
        `${label}: answer arrives`,
      );
    });
    return Promise.race([timeout, answered]);
  }

  async inquire(guid: string): Promise<CoreInquiryResult> {
    const fails = !this.reliableInquiries && (this.#inquiryFailures[this.#inquiries++ % this.#inquiryFailures.length] ?? false);
    await this.#s.schedule(Promise.resolve(), `inquiry ${guid}${fails ? " (503)" : ""}`);
    if (fails) return { kind: "answered", status: 503, body: "" };
    const answer = this.bank.inquire(guid);
    return answer === null
      ? { kind: "answered", status: 404, body: JSON.stringify({ guid, code: "NOT_FOUND" }) }
      : { kind: "answered", status: 200, body: answer };
  }

  /** Processes every request whose deadline is at or before `now` (call before the clock moves there). */
  settleDue(now: number): void {
    for (const inFlight of [...this.#inFlight]) if (inFlight.deadline <= now) inFlight.process();
  }

  /** Processes every request still in flight: the core finishes what it got. */
  settleAll(): void {
    for (const inFlight of [...this.#inFlight]) inFlight.process();
  }
}
