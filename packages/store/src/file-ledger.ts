import {
  MESSAGE_STREAM,
  decideMessage,
  messageCommands,
  messageRefusalError,
  newMessage,
  systemClock,
  type Clock,
  type Message,
  type MessageCommand,
  type MessageDecider,
  type MessageDecision,
  type MessageErrorReason,
  type MessageEvent,
  type MessageVerdictFacts,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { handle, WITNESSED } from "./command-path.ts";
import { messageStream } from "./streams/message-stream.ts";
import { checkMessageOrder, type OrderCheck } from "./sql/files/checkMessageOrder.ts";
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
  /**
   * What decides every change of a message: the message machine (`decideMessage`) by default,
   * and in production always. A test passes a variant to prove that its suite catches a broken rule.
   */
  readonly decider?: MessageDecider | undefined;
}

/**
 * The database side of the file queue (SPEC F1–F8): each claimed file's life as a `message`
 * event stream with the `messages` projection, the `processed` table whose `msg_id` primary
 * key stops duplicates, and the duplicates with their files. Every change is one command
 * decided by the message machine on the store's one command path (load, decide, append,
 * project), events and rows in one transaction. It does no file I/O: the
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
    this.#decide = options.decider ?? decideMessage;
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
   * Records one claimed file in one transaction: its claim and its outcome, one `message.settle`
   * decided by the message machine. The ledger only gathers facts: which stream the file is
   * (the one this claim settled, the one its name continues, see
   * {@link SettleInput.errorCopyExists}, or a new one named after the claim) and, for a valid
   * message, whether its row went into `processed` (the primary key decides a duplicate, SPEC
   * F3). The machine decides the rest: the move back from `error/` it had not seen (replayed,
   * `observed`), the claim, and recorded, duplicate or rejected. `handler` runs only for a
   * message recorded, in the same transaction.
   *
   * If this claim was settled already (a consumer died after the commit and before moving the
   * file), nothing is written and the result is `already` with the message as recorded. Any
   * other refusal is `VERQ_MESSAGE_REFUSED`; if `handler` throws, the error propagates. Either
   * way nothing at all is written.
   */
  async settle(input: SettleInput, handler?: ProcessedMessageHandler): Promise<SettleResult> {
    try {
      return await this.#store.transaction(
        async (trx) => {
          const now = this.#clock.now();
          const id =
            (await selectMessageByClaim(trx, input.claimId))?.id ??
            (await selectOpenMessageByFile(trx, input.file, input.errorCopyExists))?.id ??
            input.claimId;
          const { claimId, owner, file, recovered } = input;
          const verdict = await this.#verdictFacts(trx, id, input.verdict, now);
          const command = messageCommands.settle({ claimId, owner, file, recovered, verdict, now });
          const decision = await this.#handle(trx, id, command);
          if (!decision.accepted) {
            // A refusal rolls back the transaction, and with it the `processed` row inserted above;
            // the one that is an answer (`already-settled`) is answered with the message as recorded.
            throw messageRefusalError(id, decision.command, decision.refusal) ?? new AlreadySettled(await selectMessage(trx, id));
          }
          const kind = settledKind(decision.events);
          if (kind === "recorded" && verdict.kind === "valid") {
            const { key, group, sequence, amount, message } = verdict;
            await handler?.(trx, { key, group, sequence, amount, message, messageId: id });
          }
          return { kind, message: decision.after };
        },
        undefined,
        WITNESSED,
      );
    } catch (error) {
      if (error instanceof AlreadySettled && error.settled !== null) return { kind: "already", message: error.settled };
      throw error;
    }
  }

  /**
   * Records `files replay`: the message in `error` under `file` is back in the inbox. Returns
   * the message, or null when the machine refuses (the latest message under that name is not in
   * error) or no message has that name; nothing is written then, and the consumer will record the
   * move as `observed` when it settles the file.
   */
  async replay(file: string): Promise<Message | null> {
    return this.#store.transaction(
      async (trx) => {
        const open = await selectOpenMessageByFile(trx, file);
        if (open === null) return null;
        const decision = await this.#handle(trx, open.id, messageCommands.replay({ file, now: this.#clock.now() }));
        return decision.accepted ? decision.after : null;
      },
      undefined,
      WITNESSED,
    );
  }

  /** The one command path for stream `id`: load, decide through the machine (from `new` if it has no events), commit. */
  async #handle(trx: Kysely<VerqDatabase>, id: string, command: MessageCommand): Promise<MessageDecision> {
    return (await handle(trx, this.#store.dialect, messageStream, this.#decide, id, newMessage, command)).decision;
  }

  /**
   * The verdict as the machine takes it. For a valid message, the one fact it cannot know: the
   * row is inserted into `processed` for stream `id`, and the primary key, not a lookup, says
   * whether it went in (SPEC F3).
   */
  async #verdictFacts(trx: Kysely<VerqDatabase>, id: string, verdict: MessageVerdict, now: number): Promise<MessageVerdictFacts> {
    if (verdict.kind === "invalid") return verdict;
    const row: ProcessedTable = {
      msg_id: verdict.key,
      order_no: verdict.group,
      seq: verdict.sequence,
      amount: verdict.amount,
      processed_at: now,
      file: verdict.file,
      message_id: id,
      message: verdict.message,
    };
    return { ...verdict, inserted: await insertProcessedMessage(trx, this.#store.dialect, row) };
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
}

/** A settle refused as `already-settled`: thrown to roll the transaction back, answered as `already`. */
class AlreadySettled extends Error {
  constructor(readonly settled: Message | null) {
    super("this claim settled the message already");
  }
}

/** What a settle recorded, read from the outcome event the machine decided (always the last one). */
function settledKind(events: readonly MessageEvent[]): SettleResult["kind"] {
  switch (events.at(-1)?.type) {
    case "message.recorded":
      return "recorded";
    case "message.duplicated":
      return "duplicate";
    case "message.rejected":
      return "rejected";
    default:
      throw new Error(`a settle decided no outcome: ${events.map((e) => e.type).join(", ")}`);
  }
}
