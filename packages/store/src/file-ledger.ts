import {
  MESSAGE_STREAM,
  MessageError,
  decideMessage,
  messageCommands,
  newMessage,
  systemClock,
  type Clock,
  type Message,
  type MessageCommand,
  type MessageDecider,
  type MessageErrorReason,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { seamsOf, type FileLedgerSeams } from "./seams.ts";
import { checkMessageOrder, type OrderCheck } from "./sql/files/checkMessageOrder.ts";
import { commitMessageEvents } from "./sql/files/commitMessageEvents.ts";
import { insertMessageDuplicate } from "./sql/files/insertMessageDuplicate.ts";
import { insertProcessedMessage } from "./sql/files/insertProcessedMessage.ts";
import { selectMessageStats, type MessageStats } from "./sql/files/selectMessageStats.ts";
import { messageDb, type ProcessedTable } from "./sql/files/messageTables.ts";
import { readStream } from "./sql/events/readStream.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { rebuildMessageProjections } from "./sql/files/rebuildMessageProjections.ts";
import { selectDuplicateKeys } from "./sql/files/selectDuplicateKeys.ts";
import { selectMessageDuplicates, type MessageDuplicate } from "./sql/files/selectMessageDuplicates.ts";
import { selectErrorMessagesByFile } from "./sql/files/selectErrorMessagesByFile.ts";
import { selectMessage } from "./sql/files/selectMessage.ts";
import { selectMessageByClaim } from "./sql/files/selectMessageByClaim.ts";
import { selectOpenMessageByFile } from "./sql/files/selectOpenMessageByFile.ts";

/** A valid message, as the `processed` row will hold it. */
export interface ProcessedMessage {
  /** The idempotency key (`msg_id` in the default profile). */
  readonly key: string;
  /** The ordering group (`order_no`). */
  readonly group: string;
  /** The sequence number within the group (`seq`). */
  readonly sequence: number;
  readonly amount: number | null;
  /** The whole message as JSON text. */
  readonly message: string;
}

/**
 * What the consumer found in a claimed file: a valid message (to record) or an error reason.
 * `file` is the name the file was given in `done/` or `error/`.
 */
export type MessageVerdict =
  | ({ readonly kind: "valid"; readonly file: string } & ProcessedMessage)
  | { readonly kind: "invalid"; readonly reason: MessageErrorReason; readonly detail: string; readonly file: string };

/** One claimed file to settle. */
export interface SettleInput {
  /** The claim's id: unique per claim, kept when a dead consumer's claim is recovered. */
  readonly claimId: string;
  /** The consumer that holds the claim (`pid@host`). */
  readonly owner: string;
  /** The file's name in the inbox. */
  readonly file: string;
  /** True when the file was taken over from `processing/`, left there by a consumer that died. */
  readonly recovered: boolean;
  /**
   * True when `error/` holds a file of the same name right now. A message in `error` under that
   * name is then that other file, and this one is new; otherwise this file is that message,
   * moved back to the inbox, and its stream goes on.
   */
  readonly errorCopyExists: boolean;
  readonly verdict: MessageVerdict;
}

/**
 * What {@link FileLedger.settle} recorded: `recorded` (a new row in `processed`),
 * `duplicate` (the primary key refused it; recorded in the duplicates), `rejected` (error
 * with a reason), or `already` (this claim had been settled before a crash: nothing new).
 */
export interface SettleResult {
  readonly kind: "recorded" | "duplicate" | "rejected" | "already";
  readonly message: Message;
}

/**
 * The user's business work for one valid message. It runs inside the transaction that inserts
 * the `processed` row, only when that insert went in (never for a duplicate), and commits or
 * rolls back with it. The store retries a transaction that met a lock, so the handler must do
 * nothing outside `trx` that it cannot repeat.
 */
export type ProcessedMessageHandler = (
  trx: Kysely<VerqDatabase>,
  message: ProcessedMessage & { readonly messageId: string },
) => Promise<void>;

/** Settings of a file ledger. */
export interface FileLedgerOptions {
  readonly clock?: Clock;
}

/**
 * The database side of the file queue (SPEC F1–F8): each claimed file's life as a `message`
 * event stream with the `messages` projection, the `processed` table whose `msg_id` primary
 * key stops duplicates, and the duplicates with their files. Every change is decided by the
 * message machine and written, events and rows, in one transaction. It does no file I/O: the
 * consumer (in the adapters) moves the files and calls {@link settle} for each one.
 *
 * @example
 * const ledger = new FileLedger(store);
 * const { kind } = await ledger.settle({ claimId, owner, file, recovered: false, errorCopyExists: false, verdict });
 */
export class FileLedger {
  readonly #store: VerqStore;
  readonly #clock: Clock;
  readonly #decide: MessageDecider;

  constructor(store: VerqStore, options: FileLedgerOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#decide = seamsOf<FileLedgerSeams>(options).decider ?? decideMessage;
  }

  /** The message whose current or last claim is `claimId`, or null (what recovery asks first). */
  findByClaim(claimId: string): Promise<Message | null> {
    return selectMessageByClaim(this.#store.db, claimId);
  }

  /** One message by its stream id, or null. */
  get(id: string): Promise<Message | null> {
    return selectMessage(this.#store.db, id);
  }

  /**
   * Records one claimed file in one transaction: its claim, and then either the `processed`
   * row and `handler` (a valid message whose key is new), a duplicate (the primary key refused
   * the key), or the error reason. A file whose stream is in `error` under its name, and
   * which is not a different file (see {@link SettleInput.errorCopyExists}), was moved back:
   * that move is recorded first as `message.replayed` (by `observed`).
   *
   * If this claim was settled already (a consumer died after the commit and before moving the
   * file), nothing is written and the result is `already` with the message as recorded. If
   * `handler` throws, nothing at all is written and the error propagates.
   */
  async settle(input: SettleInput, handler?: ProcessedMessageHandler): Promise<SettleResult> {
    return this.#store.transaction(async (trx) => {
      const now = this.#clock.now();
      const settled = await selectMessageByClaim(trx, input.claimId);
      if (settled !== null && (settled.state === "done" || settled.state === "error"))
        return { kind: "already", message: settled };

      let before = settled;
      if (before === null) {
        const open = await selectOpenMessageByFile(trx, input.file);
        const continues = open !== null && (open.state === "inbox" || !input.errorCopyExists);
        before = continues ? open : newMessage(input.claimId, input.file, now);
      }
      const commands: MessageCommand[] = [];
      if (before.state === "error") commands.push(messageCommands.replay({ file: input.file, by: "observed", now }));
      if (before.state !== "processing") {
        commands.push(
          messageCommands.claim({
            claimId: input.claimId,
            owner: input.owner,
            file: input.file,
            recovered: input.recovered,
            now,
          }),
        );
      }

      const { verdict } = input;
      let kind: SettleResult["kind"];
      if (verdict.kind === "invalid") {
        kind = "rejected";
        commands.push(
          messageCommands.reject({
            claimId: input.claimId,
            reason: verdict.reason,
            detail: verdict.detail,
            file: verdict.file,
            now,
          }),
        );
      } else {
        // Decide the claim first: a refused claim must not leave a row in `processed`.
        this.#decideOrThrow(before, commands);
        const row: ProcessedTable = {
          msg_id: verdict.key,
          order_no: verdict.group,
          seq: verdict.sequence,
          amount: verdict.amount,
          processed_at: now,
          file: verdict.file,
          message_id: before.id,
          message: verdict.message,
        };
        // SPEC F3: the PRIMARY KEY decides; no lookup before the insert.
        const inserted = await insertProcessedMessage(trx, this.#store.dialect, row);
        kind = inserted ? "recorded" : "duplicate";
        if (inserted) {
          const { key, group, sequence, amount, message } = verdict;
          await handler?.(trx, { key, group, sequence, amount, message, messageId: before.id });
        } else {
          await insertMessageDuplicate(trx, { message_id: before.id, msg_id: verdict.key, file: verdict.file, at_ms: now });
        }
        const { key, group, sequence, amount, message } = verdict;
        commands.push(
          messageCommands.record({
            claimId: input.claimId,
            outcome: kind,
            key,
            group,
            sequence,
            amount,
            message,
            file: verdict.file,
            now,
          }),
        );
      }
      const decision = this.#decideOrThrow(before, commands);
      await commitMessageEvents(trx, this.#store.dialect, before, decision.after, decision.events);
      return { kind, message: decision.after };
    });
  }

  /**
   * Records `files replay`: the message in `error` under `file` is back in the inbox. Returns
   * the message, or null when no message is in error under that name (nothing is written; the
   * consumer will record the move as `observed` when it claims the file).
   */
  async replay(file: string): Promise<Message | null> {
    return this.#store.transaction(async (trx) => {
      const open = await selectOpenMessageByFile(trx, file);
      if (open === null || open.state !== "error") return null;
      const decision = this.#decideOrThrow(open, [messageCommands.replay({ file, by: "command", now: this.#clock.now() })]);
      await commitMessageEvents(trx, this.#store.dialect, open, decision.after, decision.events);
      return decision.after;
    });
  }

  /** The messages in `error` under any of `files`, by name: what `files errors` prints. */
  errorsFor(files: readonly string[]): Promise<Map<string, Message>> {
    return selectErrorMessagesByFile(this.#store.db, files);
  }

  /** The keys stopped as duplicates, each once, ascending (SPEC F4). */
  duplicateKeys(): Promise<string[]> {
    return selectDuplicateKeys(this.#store.db);
  }

  /** Every duplicate with its file. */
  duplicates(): Promise<MessageDuplicate[]> {
    return selectMessageDuplicates(this.#store.db);
  }

  /** SPEC F6: duplicated or missing sequence numbers per group; at most `limit` problems. */
  checkOrder(options: { start?: number; limit?: number } = {}): Promise<OrderCheck> {
    return checkMessageOrder(this.#store.db, options.start ?? 1, options.limit ?? 10_000);
  }

  /** Rows in `processed`, duplicates, and message streams by state. */
  stats(): Promise<MessageStats> {
    return selectMessageStats(this.#store.db);
  }

  /** The `processed` rows, by key. */
  async processed(): Promise<ProcessedTable[]> {
    return messageDb(this.#store.db).selectFrom("processed").selectAll().orderBy("msg_id").execute();
  }

  /** A message's event stream, in order. */
  history(id: string): Promise<StoredEvent[]> {
    return readStream(this.#store.db, MESSAGE_STREAM, id);
  }

  /** Folds `messages`, `processed` and the duplicates again from the event log, in one transaction. */
  rebuild(): Promise<{ messages: number; events: number }> {
    return this.#store.transaction((trx) => rebuildMessageProjections(trx));
  }

  #decideOrThrow(before: Message, commands: readonly MessageCommand[]) {
    const decision = this.#decide(before, ...commands);
    if (!decision.accepted) {
      throw new MessageError(
        "VERQ_MESSAGE_REFUSED",
        `message ${before.id}: ${commands.map((c) => c.type).join(" then ")} refused (${decision.refusal}); nothing was recorded`,
      );
    }
    return decision;
  }
}
