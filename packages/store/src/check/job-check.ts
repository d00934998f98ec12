import { JOB_EVENT_TYPES, JOB_STREAM, canonicalJson, evolveJob, newJob, type JobEvent, type JobStreamState } from "@verq/core";
import type { JobRow } from "../sql/jobs/jobRow.ts";
import { rowToJob } from "../sql/jobs/jobRow.ts";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { selectRowsWithoutStream } from "../sql/check/selectRowsWithoutStream.ts";
import type { RedrivesTable } from "../schema.ts";
import { streamName } from "./finding.ts";
import { describeDifferences, eachPage, evolveOrReport, num, typedEvent, type StreamTypeCheck } from "./stream-check.ts";

interface ExpectedRedrive {
  readonly position: number;
  readonly previousToken: number;
  readonly note: string;
  readonly at: number;
}

/** One job stream folded so far. */
export interface JobStreamAudit {
  readonly id: string;
  job: JobStreamState;
  /** Set once the fold refused an event: the projection is then not compared. */
  broken: boolean;
  payloadJson: string;
  enqueuePosition: number;
  /** Each token with an accepted outcome, and the version of that outcome. */
  readonly finished: Map<number, number>;
  readonly redrives: ExpectedRedrive[];
}

const OUTCOMES = new Set<string>(["job.completed", "job.retryScheduled", "job.died"]);
const JOB_FIELDS = [
  "state",
  "token",
  "attempts",
  "maxAttempts",
  "deadline",
  "availableAt",
  "owner",
  "leaseUntil",
  "reason",
  "deadSince",
  "orderingKey",
  "queue",
  "priority",
  "kind",
  "leaseExpiries",
  "enqueuedAt",
  "updatedAt",
  "version",
] as const;

/**
 * Job streams: the fold with `evolveJob` (what the store projects `jobs` with), the fencing
 * rules of the log (each claim's token exactly one above the job's, a redrive or a cancel keeping
 * it, one accepted outcome per token and only for the current one, none after a cancel took the
 * token's lease away), the `jobs` row and the `redrives`
 * audit rows of each job.
 */
export const jobCheck: StreamTypeCheck<JobStreamAudit> = {
  streamType: JOB_STREAM,
  begin: (id) => ({ id, job: newJob(id), broken: false, payloadJson: "", enqueuePosition: 0, finished: new Map(), redrives: [] }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(JOB_STREAM, s.id);
    const event = typedEvent<JobEvent>(stored, JOB_EVENT_TYPES, name, report);
    if (event === undefined) {
      s.broken = true;
      return;
    }
    const before = s.job;
    if (before.state !== "new") {
      if (event.type === "job.claimed") {
        const token = event.data.token;
        if (token <= before.token)
          report("TOKEN_RESET", name, `v${stored.version} job.claimed token ${token} after token ${before.token}`);
        else if (token !== before.token + 1)
          report("TOKEN_SKIP", name, `v${stored.version} job.claimed token ${token} after token ${before.token}`);
      } else if (event.type === "job.redriven") {
        if (event.data.previousToken !== before.token)
          report(
            "TOKEN_RESET",
            name,
            `v${stored.version} job.redriven previousToken ${event.data.previousToken}, the job's token is ${before.token}`,
          );
        s.redrives.push({
          position: stored.position,
          previousToken: event.data.previousToken,
          note: event.data.note,
          at: event.data.at,
        });
      } else if (event.type === "job.cancelled") {
        if (event.data.previousToken !== before.token)
          report(
            "TOKEN_RESET",
            name,
            `v${stored.version} job.cancelled previousToken ${event.data.previousToken}, the job's token is ${before.token}`,
          );
        // A cancel ends the attempt of a lease it takes away: no outcome may follow for that token.
        if (before.state === "leased" && !s.finished.has(before.token)) s.finished.set(before.token, stored.version);
      } else if (event.type === "job.failed") {
        // A failure is reported by the holder of the current token, before its attempt's outcome.
        const token = event.data.token;
        if (token !== before.token || s.finished.has(token))
          report("STALE_FINISH", name, `v${stored.version} job.failed token ${token}, the job's token is ${before.token}`);
      } else if (OUTCOMES.has(event.type)) {
        const token = (event.data as { token: number }).token;
        const earlier = s.finished.get(token);
        if (earlier !== undefined)
          report("DOUBLE_FINISH", name, `v${stored.version} ${event.type} token ${token}, already finished at v${earlier}`);
        else if (token !== before.token)
          report("STALE_FINISH", name, `v${stored.version} ${event.type} token ${token}, the job's token is ${before.token}`);
        if (earlier === undefined) s.finished.set(token, stored.version);
      }
    }
    const job = evolveOrReport(evolveJob, before, event, stored, name, report);
    if (job === undefined) {
      s.broken = true;
      return;
    }
    s.job = job;
    if (event.type === "job.enqueued") {
      s.payloadJson = canonicalJson(event.data.payload);
      s.enqueuePosition = stored.position;
    }
  },

  async settle(db, streams, report) {
    const ids = streams.map((s) => s.id);
    const rows = new Map((await selectRowsByKeys<JobRow>(db, "jobs", "id", ids)).map((r) => [r.id, r]));
    const redrives = new Map<string, RedrivesTable[]>();
    for (const r of await selectRowsByKeys<RedrivesTable>(db, "redrives", "job_id", ids)) {
      const audit = redrives.get(r.job_id);
      if (audit === undefined) redrives.set(r.job_id, [r]);
      else audit.push(r);
    }
    for (const r of await selectRowsByKeys<{ id: string }>(db, "job_archive", "id", ids))
      report("ARCHIVE_MISMATCH", streamName(JOB_STREAM, r.id), "the job is archived (pruned) but its stream still has events");
    for (const s of streams) {
      const name = streamName(JOB_STREAM, s.id);
      compareRedrives(name, s, redrives.get(s.id) ?? [], report);
      if (s.broken || s.job.state === "new") continue;
      const row = rows.get(s.id);
      if (row === undefined) {
        report("PROJECTION_MISSING", name, `no jobs row for a stream of ${s.job.version} events`);
        continue;
      }
      const differences = describeDifferences(rowToJob({ ...row, payload: "null" }), s.job, JOB_FIELDS);
      if (row.payload !== s.payloadJson) differences.push("payload differs");
      const lastFailure = s.job.lastFailure === null ? null : JSON.stringify(s.job.lastFailure);
      if (row.last_failure !== lastFailure)
        differences.push(`last_failure=${String(row.last_failure)} (fold: ${String(lastFailure)})`);
      const traceContext = s.job.traceContext === undefined ? null : JSON.stringify(s.job.traceContext);
      if (row.trace_context !== traceContext)
        differences.push(`trace_context=${String(row.trace_context)} (fold: ${String(traceContext)})`);
      if (num(row.enqueue_position) !== s.enqueuePosition)
        differences.push(`enqueue_position=${String(row.enqueue_position)} (fold: ${s.enqueuePosition})`);
      if (differences.length > 0) report("PROJECTION_MISMATCH", name, `jobs row: ${differences.join(", ")}`);
    }
  },

  async orphans(db, batchSize, report) {
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<JobRow>(db, "jobs", "id", JOB_STREAM, after, limit),
      (row) => row.id,
      (row) => report("PROJECTION_ORPHAN", streamName(JOB_STREAM, row.id), `jobs row (state ${row.state}) without events`),
    );
    // The redrives audit rows of a pruned job are kept: its archive row explains them.
    const archived = new Set<string>();
    await eachPage(
      batchSize,
      async (after, limit) => {
        const rows = await selectRowsWithoutStream<RedrivesTable>(db, "redrives", "job_id", JOB_STREAM, after, limit);
        const ids = [...new Set(rows.map((r) => r.job_id))];
        for (const r of await selectRowsByKeys<{ id: string }>(db, "job_archive", "id", ids)) archived.add(r.id);
        return rows;
      },
      (row) => row.job_id,
      (row) => {
        if (archived.has(row.job_id)) return;
        report(
          "REDRIVE_AUDIT_MISMATCH",
          streamName(JOB_STREAM, row.job_id),
          `redrives row at position ${String(row.position)} for a job without events`,
        );
      },
    );
  },
};

/** The `redrives` rows of one job against its `job.redriven` events, matched by position. */
function compareRedrives(
  name: string,
  s: JobStreamAudit,
  rows: readonly RedrivesTable[],
  report: (code: "REDRIVE_AUDIT_MISMATCH", stream: string, detail: string) => void,
): void {
  const byPosition = new Map(rows.map((r) => [num(r.position), r]));
  for (const expected of s.redrives) {
    const row = byPosition.get(expected.position);
    byPosition.delete(expected.position);
    if (row === undefined) {
      report("REDRIVE_AUDIT_MISMATCH", name, `no redrives row for the job.redriven at position ${expected.position}`);
      continue;
    }
    const differences = describeDifferences(
      { previousToken: num(row.previous_token), note: row.note, at: num(row.at_ms) },
      { previousToken: expected.previousToken, note: expected.note, at: expected.at },
      ["previousToken", "note", "at"],
    );
    if (differences.length > 0)
      report("REDRIVE_AUDIT_MISMATCH", name, `redrives row at position ${expected.position}: ${differences.join(", ")}`);
  }
  for (const position of byPosition.keys())
    report("REDRIVE_AUDIT_MISMATCH", name, `redrives row at position ${String(position)} without a job.redriven event there`);
}
