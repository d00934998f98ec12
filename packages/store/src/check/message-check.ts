import { MESSAGE_EVENT_TYPES, MESSAGE_STREAM, evolveMessage, newMessage, type Message, type MessageEvent } from "@verq/core";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { selectRowsWithoutStream } from "../sql/check/selectRowsWithoutStream.ts";
import type { MessageDuplicatesTable, MessagesTable, ProcessedTable } from "../sql/files/messageTables.ts";
import { rowToMessage } from "../sql/files/messageRow.ts";
import { streamName, type Report } from "./finding.ts";
import { describeDifferences, eachPage, evolveOrReport, num, typedEvent, type StreamTypeCheck } from "./stream-check.ts";

/** One message stream (a file's life) folded so far, with the rows its events project besides `messages`. */
export interface MessageStreamAudit {
  readonly id: string;
  message: Message;
  broken: boolean;
  /** The `processed` rows its `message.recorded` events give, by key. */
  readonly processed: Map<string, ProcessedTable>;
  /** The `message_duplicates` row its `message.duplicated` event gives. */
  duplicate: MessageDuplicatesTable | null;
}

const MESSAGE_FIELDS = [
  "file",
  "state",
  "claimId",
  "owner",
  "claims",
  "reason",
  "detail",
  "key",
  "outcome",
  "replays",
  "createdAt",
  "updatedAt",
  "version",
] as const;
const PROCESSED_FIELDS = ["order_no", "seq", "amount", "processed_at", "file", "message_id", "message"] as const;

/**
 * Message streams: the fold with `evolveMessage` against each `messages` row, and the
 * `processed` and `message_duplicates` rows that its `message.recorded` and `message.duplicated`
 * events give (what `rebuildProjections` writes), in both directions.
 */
export const messageCheck: StreamTypeCheck<MessageStreamAudit> = {
  streamType: MESSAGE_STREAM,
  begin: (id) => ({ id, message: newMessage(id), broken: false, processed: new Map(), duplicate: null }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(MESSAGE_STREAM, s.id);
    const event = typedEvent<MessageEvent>(stored, MESSAGE_EVENT_TYPES, name, report);
    const message = event === undefined ? undefined : evolveOrReport(evolveMessage, s.message, event, stored, name, report);
    if (event === undefined || message === undefined) {
      s.broken = true;
      return;
    }
    s.message = message;
    if (event.type === "message.recorded") {
      const d = event.data;
      s.processed.set(d.key, {
        msg_id: d.key,
        order_no: d.group,
        seq: d.sequence,
        amount: d.amount,
        processed_at: d.at,
        file: d.file,
        message_id: s.id,
        message: d.message,
      });
    } else if (event.type === "message.duplicated") {
      s.duplicate = { message_id: s.id, msg_id: event.data.key, file: event.data.file, at_ms: event.data.at };
    }
  },

  async settle(db, streams, report) {
    const ids = streams.map((s) => s.id);
    const rows = new Map((await selectRowsByKeys<MessagesTable>(db, "messages", "id", ids)).map((r) => [r.id, r]));
    const processed = new Map<string, ProcessedTable[]>();
    for (const r of await selectRowsByKeys<ProcessedTable>(db, "processed", "message_id", ids))
      processed.set(r.message_id, [...(processed.get(r.message_id) ?? []), r]);
    const duplicates = new Map(
      (await selectRowsByKeys<MessageDuplicatesTable>(db, "message_duplicates", "message_id", ids)).map((r) => [r.message_id, r]),
    );
    for (const s of streams) {
      if (s.broken || s.message.version === 0) continue;
      const name = streamName(MESSAGE_STREAM, s.id);
      const row = rows.get(s.id);
      if (row === undefined) report("PROJECTION_MISSING", name, `no messages row for a stream of ${s.message.version} events`);
      else {
        const differences = describeDifferences(rowToMessage(row), s.message, MESSAGE_FIELDS);
        if (differences.length > 0) report("PROJECTION_MISMATCH", name, `messages row: ${differences.join(", ")}`);
      }
      compareProcessed(name, s, processed.get(s.id) ?? [], report);
      compareDuplicate(name, s, duplicates.get(s.id) ?? null, report);
    }
  },

  async orphans(db, batchSize, report) {
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<MessagesTable>(db, "messages", "id", MESSAGE_STREAM, after, limit),
      (row) => row.id,
      (row) =>
        report("PROJECTION_ORPHAN", streamName(MESSAGE_STREAM, row.id), `messages row (state ${row.state}) without events`),
    );
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<ProcessedTable>(db, "processed", "message_id", MESSAGE_STREAM, after, limit),
      (row) => row.message_id,
      (row) =>
        report(
          "PROJECTION_ORPHAN",
          streamName(MESSAGE_STREAM, row.message_id),
          `processed row ${JSON.stringify(row.msg_id)} without events`,
        ),
    );
    await eachPage(
      batchSize,
      (after, limit) =>
        selectRowsWithoutStream<MessageDuplicatesTable>(db, "message_duplicates", "message_id", MESSAGE_STREAM, after, limit),
      (row) => row.message_id,
      (row) =>
        report(
          "PROJECTION_ORPHAN",
          streamName(MESSAGE_STREAM, row.message_id),
          `message_duplicates row ${JSON.stringify(row.msg_id)} without events`,
        ),
    );
  },
};

function compareProcessed(name: string, s: MessageStreamAudit, rows: readonly ProcessedTable[], report: Report): void {
  const expected = new Map(s.processed);
  for (const row of rows) {
    const fold = expected.get(row.msg_id);
    expected.delete(row.msg_id);
    if (fold === undefined) {
      report("PROJECTION_MISMATCH", name, `processed row ${JSON.stringify(row.msg_id)} without a message.recorded event`);
      continue;
    }
    const read = { ...row, seq: num(row.seq), amount: num(row.amount), processed_at: num(row.processed_at) };
    const differences = describeDifferences(read, fold, PROCESSED_FIELDS, ["message"]);
    if (differences.length > 0)
      report("PROJECTION_MISMATCH", name, `processed row ${JSON.stringify(row.msg_id)}: ${differences.join(", ")}`);
  }
  for (const key of expected.keys()) report("PROJECTION_MISSING", name, `no processed row ${JSON.stringify(key)}`);
}

function compareDuplicate(name: string, s: MessageStreamAudit, row: MessageDuplicatesTable | null, report: Report): void {
  if (row === null && s.duplicate === null) return;
  if (row === null) return report("PROJECTION_MISSING", name, "no message_duplicates row for its message.duplicated event");
  if (s.duplicate === null)
    return report("PROJECTION_MISMATCH", name, "message_duplicates row without a message.duplicated event");
  const differences = describeDifferences({ ...row, at_ms: num(row.at_ms) }, s.duplicate, ["msg_id", "file", "at_ms"]);
  if (differences.length > 0) report("PROJECTION_MISMATCH", name, `message_duplicates row: ${differences.join(", ")}`);
}
