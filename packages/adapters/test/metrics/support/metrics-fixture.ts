import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fingerprintRequest, ManualClock, type CoreOutcome, type FinishOutcome } from "@verq/core";
import { GuidLedger, JobQueue, type VerqStore } from "@verq/store";
import { JobFacts, failure } from "../../../../store/test/helpers/job-facts.ts";
import { initQueue } from "../../../src/files/queue-dirs.ts";

/** What the fixture wrote: the identifiers and payload words that no label may carry. */
export interface MetricsFixture {
  readonly clock: ManualClock;
  readonly jobIds: readonly string[];
  readonly guids: readonly string[];
  /** Words found only in payloads, requests and responses. */
  readonly payloadWords: readonly string[];
  /** The file queue's root. */
  readonly files: string;
}

const T0 = 1_767_258_000_000;

/**
 * Fills `store` with jobs in every state and every dead reason, two redrives, a lease expiry,
 * a refused stale finish, jobs of two kinds in the queue `mail` with recorded failures (a retry
 * after an HttpError, a permanent HttpError, an exhausted FetchError) and GUID ledger entries in
 * every state, through the public services
 * with a manual clock; and a file queue under `dir` with files in inbox/, processing/, error/
 * (and in done/ and a half-written name in the inbox, which are not counted). Ends at a known
 * time after the deaths and the UNKNOWN and FAILED entries, so that every age is above 0.
 */
export async function fillMetricsFixture(store: VerqStore, dir: string): Promise<MetricsFixture> {
  const clock = new ManualClock(T0);
  const queue = new JobQueue(store, {
    clock,
    backoff: { baseMs: 100, factor: 2, maxMs: 1_000, jitter: "none" },
    defaultLeaseMs: 1_000,
  });
  const payload = (id: string) => ({ secret: `payload-word-${id}` });
  const jobIds: string[] = [];
  /** Claims the one job due, which must be `id`. */
  const claim = async (id: string, owner = "worker-1", leaseMs = 1_000) => {
    const job = await queue.claim(owner, { leaseMs });
    if (job?.id !== id) throw new Error(`fixture: expected to claim ${id}, got ${job?.id ?? "nothing"}`);
    return job;
  };
  /** Enqueues `id`, then claims it and finishes it with each outcome in turn. */
  const run = async (
    id: string,
    outcomes: readonly FinishOutcome[],
    options: { maxAttempts?: number; deadline?: number } = {},
  ) => {
    jobIds.push(id);
    await queue.enqueue({ id, payload: payload(id), ...options });
    for (const outcome of outcomes) {
      await queue.finish(id, (await claim(id)).token, outcome);
      clock.advance(1_000); // past any backoff, so that a retried job is due again
    }
  };

  await run("job-done-1", ["ok"]);
  // A lease expiry and a stale finish: A's lease runs out, B takes the job over, A's late finish is refused.
  await run("job-expired-2", []);
  const a = await claim("job-expired-2", "worker-a");
  clock.advance(1_000);
  const b = await claim("job-expired-2", "worker-b");
  if (await queue.finish(a.id, a.token, "ok")) throw new Error("fixture: the stale finish was accepted");
  await queue.finish(b.id, b.token, "ok");
  // Dead for each reason; the first one dies 120 s before the end.
  await run("job-permanent-3", ["permanent"]);
  const firstDeath = clock.now() - 1_000;
  await run("job-exhausted-4", ["retry", "retry"], { maxAttempts: 2 });
  await run("job-deadline-5", ["retry"], { maxAttempts: 10, deadline: clock.now() + 50 });
  // Redriven twice, done at last.
  await run("job-redriven-6", ["permanent"]);
  await queue.redrive("job-redriven-6", { note: "OPS-1" });
  await queue.finish("job-redriven-6", (await claim("job-redriven-6")).token, "permanent");
  await queue.redrive("job-redriven-6", { note: "OPS-2" });
  await queue.finish("job-redriven-6", (await claim("job-redriven-6")).token, "ok");
  // Leased (a long lease), then pending.
  await run("job-leased-7", []);
  await claim("job-leased-7", "worker-1", 3_600_000);
  for (const id of ["job-pending-8", "job-pending-9"]) await run(id, []);
  // Cancelled by an operator: dead with the reason `cancelled`.
  await run("job-cancelled-10", []);
  await queue.cancel("job-cancelled-10", { note: "OPS-3" });
  // Jobs of kinds, in the queue `mail`, with failures recorded.
  const facts = new JobFacts(store, clock);
  const kindJob = async (id: string, kind: string, maxAttempts: number) => {
    jobIds.push(id);
    await facts.enqueue({ id, kind, queue: "mail", maxAttempts, payload: payload(id) });
    const job = await queue.claim("worker-1", { leaseMs: 1_000, queues: ["mail"] });
    if (job?.id !== id) throw new Error(`fixture: expected to claim ${id}, got ${job?.id ?? "nothing"}`);
    return job.token;
  };
  let token = await kindJob("job-mail-11", "email.send", 3);
  await facts.fail("job-mail-11", token, failure("unexpected", "TypeError"));
  await facts.finish("job-mail-11", token, "retry", failure("retryable", "HttpError", { status: 503 }), 60_000);
  token = await kindJob("job-mail-12", "email.send", 1);
  await facts.finish("job-mail-12", token, "permanent", failure("permanent", "HttpError", { status: 404 }));
  token = await kindJob("job-report-13", "report.build", 1);
  await facts.finish("job-report-13", token, "retry", failure("retryable", "FetchError", { code: "ECONNRESET" }));

  // The GUID ledger, one entry per state.
  const ledger = new GuidLedger(store, { clock });
  const guids: string[] = [];
  const entry = async (guid: string, steps: readonly ("send" | CoreOutcome)[]) => {
    guids.push(guid);
    const request = JSON.stringify({ guid, amount: 4242, memo: `payload-word-${guid}` });
    await ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
    let attempts = 0;
    for (const step of steps) {
      if (step === "send") attempts = (await ledger.send(guid)).entry.attempts;
      else await ledger.record(guid, attempts, step);
    }
  };
  await entry("G-UNKNOWN-1", ["send", { kind: "no-answer" }]);
  const unknownSince = clock.now();
  clock.advance(30_000);
  await entry("G-FAILED-2", ["send", { kind: "not-sent" }]);
  const failedSince = clock.now();
  clock.advance(15_000);
  await entry("G-DONE-3", [
    "send",
    { kind: "answered", code: "0000", response: '{"guid":"G-DONE-3","code":"0000","memo":"payload-word-answer"}' },
  ]);
  await entry("G-SENT-4", ["send"]);
  await entry("G-RECEIVED-5", []);
  clock.set(firstDeath + 120_000);
  if (clock.now() <= failedSince || failedSince <= unknownSince) throw new Error("fixture: the ages would not be distinct");

  // The file queue.
  const files = join(dir, "queue");
  const dirs = initQueue(files);
  const put = (folder: string, name: string) =>
    writeFileSync(join(folder, name), JSON.stringify({ msg_id: name, body: "payload-word-file" }));
  for (const name of ["m-1.json", "m-2.json"]) put(dirs.inbox, name);
  put(dirs.inbox, ".m-3.json.tmp");
  put(dirs.processing, "m-4.json");
  for (const name of ["m-5.json", "m-6.json", "m-7.json"]) put(dirs.error, name);
  put(dirs.done, "m-8.json");

  return {
    clock,
    jobIds,
    guids,
    payloadWords: ["payload-word", "4242", "secret", "memo"],
    files,
  };
}
