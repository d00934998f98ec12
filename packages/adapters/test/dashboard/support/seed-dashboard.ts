import { classifyCoreCall, ManualClock } from "@verq/core";
import { FileLedger, GuidLedger, JobQueue, type VerqStore } from "@verq/store";
import { JobFacts, failure } from "../../../../store/test/helpers/job-facts.ts";

/** A job id that is markup: the pages must show it as text. */
export const SCRIPT_ID = `<script>alert("x")</script>&'"`;

/** A payload field that no page may show unless that job's payload is asked for. */
export const SECRET = "card-4111-1111";

/** A request field that no page may show unless that entry's request is asked for. */
export const SECRET_REQUEST = "iban-DE-secret";

/** What {@link seedDashboard} wrote, for the tests to compare the pages with. */
export const SEEDED = {
  /**
   * Of kind order.ship: claimed by worker-a (token 1), whose attempt failed with a TypeError
   * (`job.failed`), taken over by worker-b after the lease expired (token 2), then dead(permanent)
   * with an HttpError 422.
   */
  claimedTwice: "order-7",
  /** Of kind mail.send: dead after its one attempt (exhausted) with a FetchError ECONNRESET. */
  exhausted: "mail-2",
  /** Of kind mail.send: dead(exhausted) with a FetchError ECONNRESET, then redriven with the note OPS-12: pending again. */
  redriven: "mail-1",
  done: "done-1",
  unknown: "G-UNKNOWN-1",
  failed: "G-FAILED-1",
  answered: "G-DONE-1",
  byState: { job: { pending: 1, leased: 0, done: 1, dead: 3 }, guid: { RECEIVED: 0, SENT: 0, DONE: 1, UNKNOWN: 1, FAILED: 1 } },
  /** Jobs by kind: [pending, leased, done, dead]; the markup id and done-1 have none. */
  kinds: { "(none)": [0, 0, 1, 1], "mail.send": [1, 0, 0, 1], "order.ship": [0, 0, 0, 1] },
  messages: { inbox: 0, processing: 0, done: 1, error: 1 },
} as const;

/**
 * Writes a small, known world through the store's own services (and the kinds and failures
 * through its command path), one step at a time on a manual clock: jobs in every stored state but
 * leased (three dead, one claimed twice, one with a markup id), of two kinds and none, with
 * failures recorded, one redrive, ledger entries that are DONE, UNKNOWN and FAILED, and two
 * settled files.
 */
export async function seedDashboard(store: VerqStore): Promise<ManualClock> {
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 9, 0, 0));
  const queue = new JobQueue(store, { clock });
  const facts = new JobFacts(store, clock);
  const step = () => clock.advance(60_000);

  await facts.enqueue({ id: SEEDED.claimedTwice, kind: "order.ship", payload: { quantity: 7, card: SECRET }, maxAttempts: 3 });
  const first = await queue.claim("worker-a", { leaseMs: 30_000 });
  clock.advance(10_000);
  await facts.fail(SEEDED.claimedTwice, 1, failure("unexpected", "TypeError"));
  clock.advance(20_000);
  const second = await queue.claim("worker-b", { leaseMs: 30_000 });
  if (first?.token !== 1 || second?.token !== 2) throw new Error("the seed expected tokens 1 and 2 for one job");
  await facts.finish(SEEDED.claimedTwice, 2, "permanent", failure("permanent", "HttpError", { status: 422 }));
  step();

  await queue.enqueue({ id: SEEDED.done, payload: { n: 1 } });
  const done = await queue.claim("worker-a", { leaseMs: 30_000 });
  if (done?.id !== SEEDED.done) throw new Error(`the seed expected to claim ${SEEDED.done}`);
  await queue.finish(SEEDED.done, done.token, "ok");
  step();

  for (const id of [SEEDED.exhausted, SEEDED.redriven, SCRIPT_ID]) {
    const mail = id !== SCRIPT_ID;
    const payload = { to: `${id}@example.test`, card: SECRET };
    if (mail) await facts.enqueue({ id, kind: "mail.send", payload, maxAttempts: 1 });
    else await queue.enqueue({ id, payload, maxAttempts: 1 });
    const claimed = await queue.claim("worker-a", { leaseMs: 30_000 });
    if (claimed?.id !== id) throw new Error(`the seed expected to claim ${id}`);
    if (mail) await facts.finish(id, claimed.token, "retry", failure("retryable", "FetchError", { code: "ECONNRESET" }));
    else await queue.finish(id, claimed.token, "retry");
    step();
  }
  await queue.redrive(SEEDED.redriven, { note: "OPS-12" });
  step();

  const ledger = new GuidLedger(store, { clock });
  const guidStep = async (guid: string, outcome: Parameters<typeof classifyCoreCall>[1]) => {
    await ledger.receive({
      guid,
      request: JSON.stringify({ guid, account: SECRET_REQUEST }),
      fingerprint: `f-${guid}`,
      maxAttempts: 3,
    });
    await ledger.send(guid);
    await ledger.record(guid, 1, classifyCoreCall(guid, outcome));
    step();
  };
  await guidStep(SEEDED.answered, {
    kind: "answered",
    status: 200,
    body: JSON.stringify({ guid: SEEDED.answered, code: "0000" }),
  });
  await guidStep(SEEDED.unknown, { kind: "no-answer", reason: "timeout" });
  await guidStep(SEEDED.failed, { kind: "not-sent", reason: "connection refused" });

  const files = new FileLedger(store, { clock });
  await files.settle({
    claimId: "claim-1",
    owner: "1@host",
    file: "m1.json",
    recovered: false,
    errorCopyExists: false,
    verdict: { kind: "valid", key: "K1", group: "O-1", sequence: 1, amount: 5, message: "{}", file: "m1.json" },
  });
  await files.settle({
    claimId: "claim-2",
    owner: "1@host",
    file: "m2.json",
    recovered: false,
    errorCopyExists: false,
    verdict: { kind: "invalid", reason: "parse", detail: "unexpected end", file: "m2.json" },
  });
  return clock;
}
