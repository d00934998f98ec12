import {
  coerceError,
  GUID_STREAM,
  JOB_RETENTION_STREAM,
  JOB_STREAM,
  LEDGER_AUDIT_STREAM,
  LOCK_STREAM,
  MESSAGE_STREAM,
  QUEUE_STREAM,
  SCHEDULE_STREAM,
  STREAM_TYPES,
  type AnyStreamDefinition,
  type StreamType,
} from "@verq/core";
import { byStreamType, upcastEvent } from "../declared/upcast-events.ts";
import type { StoredEvent } from "../sql/events/storedEvent.ts";
import { selectEventPage } from "../sql/check/selectEventPage.ts";
import type { VerqStore } from "../store.ts";
import { streamName, type Finding, type Report } from "./finding.ts";
import { checkSubscriptions } from "./subscription-check.ts";
import { declaredCheck } from "./declared-check.ts";
import { guidCheck } from "./guid-check.ts";
import { jobCheck } from "./job-check.ts";
import { jobRetentionCheck } from "./job-retention-check.ts";
import { ledgerAuditCheck } from "./ledger-audit-check.ts";
import { lockCheck } from "./lock-check.ts";
import { messageCheck } from "./message-check.ts";
import { scheduleCheck } from "./schedule-check.ts";
import { queueCheck } from "./queue-check.ts";
import type { StreamTypeCheck } from "./stream-check.ts";

/** Options of {@link checkStore}. */
export interface CheckOptions {
  /** Events read per page, and projection rows per lookup (default 1,000; 1 to 10,000). */
  readonly batchSize?: number;
  /** Called with each finding as it is found (they are also in the report). */
  readonly onFinding?: (finding: Finding) => void;
  /**
   * Stream types the service declared (`defineStream`) with the generic projection: each stream
   * is folded through its definition (upcast) and compared with its `stream_states` row.
   */
  readonly streams?: readonly AnyStreamDefinition[];
}

/** What {@link checkStore} read and found. `ok` is true exactly when `findings` is empty. */
export interface CheckReport {
  readonly ok: boolean;
  readonly findings: readonly Finding[];
  readonly checked: {
    readonly streams: number;
    readonly events: number;
    /** Streams and events by stream type (`job`, `guid`, `message`, `ledger-audit`, …). */
    readonly byStreamType: Readonly<Record<string, { streams: number; events: number }>>;
  };
}

// Every check runs as one type, so the loop below treats them alike.
type AnyCheck = StreamTypeCheck<unknown>;

/**
 * The check of each of core's stream types, keyed by every `StreamType`: a stream type added to
 * core without a check here fails to compile.
 */
export const STREAM_CHECKS = {
  [JOB_STREAM]: jobCheck,
  [JOB_RETENTION_STREAM]: jobRetentionCheck,
  [GUID_STREAM]: guidCheck,
  [LEDGER_AUDIT_STREAM]: ledgerAuditCheck,
  [MESSAGE_STREAM]: messageCheck,
  [SCHEDULE_STREAM]: scheduleCheck,
  [QUEUE_STREAM]: queueCheck,
  [LOCK_STREAM]: lockCheck,
} as const satisfies Readonly<Record<StreamType, { readonly streamType: string }>>;
const CHECKS = STREAM_TYPES.map((type) => STREAM_CHECKS[type]) as unknown as readonly AnyCheck[];

interface OpenStream {
  readonly type: string;
  readonly id: string;
  readonly check: AnyCheck | undefined;
  readonly state: unknown;
  /** The counts of its stream type, which this stream adds its events to. */
  readonly counts: { streams: number; events: number };
  last: StoredEvent | null;
}

/**
 * Audits a store offline, like fsck: reads every stream of the event log in version order, one
 * page of `batchSize` events at a time (never the whole log in memory), and reports each
 * problem as a {@link Finding}: versions not contiguous from 1, positions going backwards within
 * a stream, events a fold refuses, job tokens that do not rise by exactly one per claim or that
 * a redrive changed, more than one accepted outcome per (job, token) or one for a token that is
 * not current, projection rows (`jobs`, `redrives`, `queues`, `ledger`, `messages`, `processed`,
 * `message_duplicates`) that differ from the fold of their events or that no events explain,
 * a ledger entry deleted while not DONE, a purge that left events of a GUID it lists, and a
 * prune that left events of a job it lists or did not archive it, or an archived job with events.
 *
 * The folds are the core's own `evolveJob`, `evolveGuid` and `evolveMessage`, which the store
 * projects and rebuilds with, so the check and the store agree by construction; each event is
 * folded at its current shape, upcast through its stream type's definition (one written by newer
 * code is `EVENT_INVALID`). Reads only.
 * Run it while no process writes to the store: a write between two pages can look like a
 * problem. Streams of a type it does not know get the version and position checks only.
 *
 * @example
 * const report = await checkStore(store, { batchSize: 500 });
 * for (const f of report.findings) console.log(formatFinding(f));
 */
export async function checkStore(store: VerqStore, options: CheckOptions = {}): Promise<CheckReport> {
  const batchSize = options.batchSize ?? 1_000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new RangeError(`batchSize must be a whole number from 1 to 10000; got ${batchSize}`);
  const db = store.db;
  const findings: Finding[] = [];
  const report: Report = (code, stream, detail) => {
    const finding = { code, stream, detail };
    findings.push(finding);
    options.onFinding?.(finding);
  };
  const all = [...CHECKS, ...(options.streams ?? []).map((definition) => declaredCheck(definition) as unknown as AnyCheck)];
  const checks = new Map(all.map((c) => [c.streamType, c]));
  const byStreamType: Record<string, { streams: number; events: number }> = {};
  const finished = new Map<AnyCheck, unknown[]>();
  let streams = 0;
  let events = 0;
  let current: OpenStream | null = null;

  const finish = (stream: OpenStream) => {
    if (stream.check === undefined) return;
    const states = finished.get(stream.check);
    if (states === undefined) finished.set(stream.check, [stream.state]);
    else states.push(stream.state);
  };
  const settle = async () => {
    for (const [check, states] of finished) await check.settle(db, states, report);
    finished.clear();
  };

  let cursor: StoredEvent | null = null;
  for (;;) {
    const page = await selectEventPage(db, cursor, batchSize);
    const reached: OpenStream[] = [];
    for (const event of page) {
      if (current === null || current.type !== event.streamType || current.id !== event.streamId) {
        if (current !== null) finish(current);
        const check = checks.get(event.streamType);
        const counts = (byStreamType[event.streamType] ??= { streams: 0, events: 0 });
        current = { type: event.streamType, id: event.streamId, check, state: check?.begin(event.streamId), counts, last: null };
        counts.streams++;
        streams++;
      }
      if (reached.at(-1) !== current) reached.push(current);
      checkOrder(current, event, report);
      const read = readable(event, current, report);
      if (read !== undefined) current.check?.step(current.state, read, report);
      current.last = event;
      current.counts.events++;
      events++;
    }
    for (const stream of reached) await stream.check?.drain?.(db, stream.state, report);
    const last = page.at(-1);
    if (last === undefined || page.length < batchSize) break;
    await settle();
    cursor = last;
  }
  if (current !== null) finish(current);
  await settle();
  for (const check of all) await check.orphans(db, batchSize, report);
  await checkSubscriptions(db, report);
  return { ok: findings.length === 0, findings, checked: { streams, events, byStreamType } };
}

/** verq's own stream types' readers: each of its events is folded at its current shape. */
const OWN_READERS = byStreamType();

/**
 * `event` at its current shape (one of verq's own upcast through its stream's definition; a
 * declared stream's check upcasts its own), or undefined with `EVENT_INVALID` reported when it
 * cannot be read (written by newer code): the check does not fold it.
 */
function readable(event: StoredEvent, stream: OpenStream, report: Report): StoredEvent | undefined {
  try {
    return upcastEvent(event, OWN_READERS);
  } catch (error) {
    report("EVENT_INVALID", streamName(stream.type, stream.id), `v${event.version} ${event.type}: ${coerceError(error).message}`);
    return undefined;
  }
}

/** Versions 1, 2, 3, … without a gap, and positions that rise with them. */
function checkOrder(stream: OpenStream, event: StoredEvent, report: Report): void {
  const name = streamName(stream.type, stream.id);
  const previous = stream.last;
  if (previous === null) {
    if (event.version !== 1) report("VERSION_GAP", name, `the stream starts at v${event.version}, not v1`);
    return;
  }
  if (event.version !== previous.version + 1) report("VERSION_GAP", name, `v${event.version} follows v${previous.version}`);
  if (event.position < previous.position)
    report(
      "POSITION_BACKWARDS",
      name,
      `v${event.version} at position ${event.position} is below v${previous.version} at position ${previous.position}`,
    );
}
