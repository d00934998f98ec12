import { lstatSync, renameSync } from "node:fs";
import { join } from "node:path";
import { isVerqError, settledFolder, type Message } from "@verq/core";
import {
  verqTracing,
  type FileLedger,
  type ProcessedMessage,
  type ProcessedMessageHandler,
  type SettleInput,
  type SettleResult,
  type VerqLogger,
  type VerqSpan,
} from "@verq/store";
import { failpoint } from "../failpoints.ts";
import { msSince } from "../log-fields.ts";
import {
  currentOwner,
  newClaimId,
  ownerMayBeAlive,
  ownerText,
  parseProcessingName,
  processingName,
  type ClaimOwner,
} from "./claim-name.ts";
import { ConsumeCounter, folderOf, type ConsumeTotals, type FileOutcome } from "./consume-totals.ts";
import { examineFile } from "./examine-file.ts";
import { entryExists, placeFile, removeFile, sameFile } from "./place-file.ts";
import { DEFAULT_PROFILE, type FileQueueProfile } from "./profile.ts";
import { isMessageFileName, listFiles, openQueue, type QueueDirs } from "./queue-dirs.ts";
import { queueName } from "./queue-name.ts";
import { DEFAULT_MAX_BYTES } from "./read-claimed-file.ts";

/** The database transaction a handler runs in (a Kysely transaction over the store). */
export type HandlerTransaction = Parameters<ProcessedMessageHandler>[0];

/** A valid message as the user's handler sees it. */
export interface ConsumedMessage extends ProcessedMessage {
  /** Every field of the message, as parsed. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The file's name in the inbox. */
  readonly file: string;
  /** The message stream's id in the event log. */
  readonly messageId: string;
}

/**
 * The user's business work for one valid message. It runs inside the database transaction
 * that inserts the message into `processed`, only when that insert went in (never for a
 * duplicate), and commits or rolls back with it. If it throws, nothing of it is kept and the
 * file goes to `error/` with reason `handler`. The store retries a transaction that met
 * another process's lock, so the handler must do nothing outside `trx` that it cannot repeat.
 */
export type FileMessageHandler = (message: ConsumedMessage, trx: HandlerTransaction) => Promise<void>;

/** Settings of a {@link FileConsumer}. */
export interface FileConsumerOptions {
  /** The queue root holding `inbox/`, `processing/`, `done/` and `error/`. */
  readonly root: string;
  readonly ledger: FileLedger;
  /** Fields, types and roles of a valid message; the course's by default. */
  readonly profile?: FileQueueProfile;
  /** Files larger than this go to `error/` with reason `too-large`, unread. 1 MiB by default. */
  readonly maxBytes?: number;
  readonly handler?: FileMessageHandler;
  /**
   * Take over a file in `processing/` once it has been there this long (by its change time),
   * even when its owner looks alive or runs on another host. Off by default: only files of
   * consumers on this host that are no longer running are recovered.
   */
  readonly recoverAfterMs?: number;
  /** Called once for every file settled. */
  readonly onFile?: (outcome: FileOutcome) => void;
  /**
   * Where the consumer logs, never a message's contents: each file settled at info (file,
   * placedAs, state done or error, outcome, reason and its detail (which never quotes the file),
   * recovered, durationMs from claim to settled); an inbox file it could not claim at warn
   * (file, code). None by default.
   */
  readonly logger?: VerqLogger;
}

// Files in `processing/` that a consumer of this process is working on right now: recovery in
// this process must not take them, although their owner pid (ours) is alive.
const inFlight = new Set<string>();

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The part of a handler's failure that may be recorded: its class and code, never its message. */
function describeHandlerError(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return `the handler threw ${name}${isVerqError(error) ? ` (${error.code})` : ""}`;
}

/**
 * A consumer of a directory queue (SPEC F1–F3).
 *
 * - **Claim**: one atomic rename `inbox/NAME` → `processing/<claimId>~<pid>@<host>~NAME`. A lost
 *   race (`ENOENT`: another consumer renamed it first) is skipped quietly. The file is read only
 *   in `processing/`.
 * - **Verdict**: over the size limit → `too-large`; not a UTF-8 JSON object → `parse`; a required
 *   field absent → `missing-field`; a field of the wrong type → `invalid-field`. Never back to
 *   the inbox.
 * - **Settle** (crash-safe order): the file is first linked into `done/` or `error/` (a hard
 *   link never replaces another file), then one transaction records the claim, the
 *   `processed` row (its primary key stops a duplicate), the handler's work and the events,
 *   then the `processing/` name is removed. A consumer that dies at any step leaves the file in
 *   `processing/`; the next start finds its claim id: if the database recorded it, the file
 *   just goes where the record says; if not, it is processed again. Nothing is lost and
 *   nothing is applied twice.
 *
 * Failpoints (`VERQ_FAILPOINTS`): `files.afterRename`, `files.afterPlace`, `files.afterCommit`.
 */
export class FileConsumer {
  readonly dirs: QueueDirs;
  readonly #ledger: FileLedger;
  readonly #profile: FileQueueProfile;
  readonly #maxBytes: number;
  readonly #handler: FileMessageHandler | undefined;
  readonly #recoverAfterMs: number | undefined;
  readonly #onFile: ((outcome: FileOutcome) => void) | undefined;
  readonly #log: VerqLogger | undefined;
  readonly #owner: ClaimOwner;
  readonly #counter = new ConsumeCounter();

  constructor(options: FileConsumerOptions) {
    this.dirs = openQueue(options.root);
    this.#ledger = options.ledger;
    this.#profile = options.profile ?? DEFAULT_PROFILE;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#handler = options.handler;
    this.#recoverAfterMs = options.recoverAfterMs;
    this.#onFile = options.onFile;
    this.#log = options.logger;
    this.#owner = currentOwner();
  }

  /** What this consumer has done so far. */
  totals(): ConsumeTotals {
    return this.#counter.totals();
  }

  /**
   * Recovery, then the inbox until a pass claims nothing (other consumers may still be working
   * on the files they claimed). Returns the totals.
   */
  async drain(shouldStop: () => boolean = () => false): Promise<ConsumeTotals> {
    await this.recover();
    while (!shouldStop() && (await this.pass(shouldStop)) > 0) {
      // Files may have arrived while this pass ran.
    }
    return this.totals();
  }

  /**
   * Like {@link drain}, then keeps polling every `pollMs` until `signal` aborts; the file in
   * hand is always finished first. Runs recovery again whenever the inbox is empty.
   */
  async watch(signal: AbortSignal, pollMs: number, onProgress?: (totals: ConsumeTotals) => void): Promise<ConsumeTotals> {
    const stop = () => signal.aborted;
    if ((await this.recover()) > 0) onProgress?.(this.totals());
    while (!stop()) {
      if ((await this.pass(stop)) > 0 || (await this.recover()) > 0) {
        onProgress?.(this.totals());
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
        signal.addEventListener("abort", done, { once: true });
      });
    }
    return this.totals();
  }

  /**
   * Takes over the files in `processing/` whose owner is gone (a consumer on this host that no
   * longer runs, or any owner once {@link FileConsumerOptions.recoverAfterMs} has passed). The
   * takeover is itself one rename to this consumer's name, keeping the claim id, so two
   * consumers starting together never both recover one file. Returns how many were settled.
   */
  async recover(): Promise<number> {
    let settled = 0;
    for (const name of listFiles(this.dirs.processing)) {
      const path = join(this.dirs.processing, name);
      if (inFlight.has(path)) continue;
      const parsed = parseProcessingName(name);
      if (parsed !== null && ownerMayBeAlive(parsed.owner, this.#owner) && !this.#stale(path)) continue;
      // A file put into processing/ by hand has no claim yet: it gets one.
      const claimId = parsed?.claimId ?? newClaimId(Date.now());
      const file = parsed?.file ?? name;
      const target = join(this.dirs.processing, processingName(claimId, this.#owner, file));
      try {
        if (target !== path) renameSync(path, target);
      } catch (error) {
        if (errno(error) === "ENOENT") continue; // another consumer recovered it first
        throw error;
      }
      if (await this.#handle(target, claimId, file, true)) settled++;
    }
    return settled;
  }

  /** One pass over the inbox in name order; returns how many files this consumer claimed. */
  async pass(shouldStop: () => boolean = () => false): Promise<number> {
    let claimed = 0;
    for (const name of listFiles(this.dirs.inbox, isMessageFileName)) {
      if (shouldStop()) break;
      if (this.#counter.isSkipped(name)) continue;
      const claimId = newClaimId(Date.now());
      // A name too long to carry the claim's prefix is claimed under a shortened one (queue-name.ts).
      const file = queueName(name);
      const path = join(this.dirs.processing, processingName(claimId, this.#owner, file));
      try {
        renameSync(join(this.dirs.inbox, name), path); // the claim (SPEC F1)
      } catch (error) {
        const code = errno(error);
        if (code === "ENOENT") continue; // lost the race: another consumer has it
        this.#counter.skip(name, code ?? "unknown");
        this.#log?.warn({ file: name, code: code ?? "unknown" }, "could not claim; the file stays in inbox/");
        continue;
      }
      claimed++;
      if (file !== name) this.#log?.info({ file: name, claimedAs: file }, "claimed under a shortened name");
      await this.#handle(path, claimId, file, false);
    }
    return claimed;
  }

  #stale(path: string): boolean {
    if (this.#recoverAfterMs === undefined) return false;
    try {
      return Date.now() - lstatSync(path).ctimeMs >= this.#recoverAfterMs;
    } catch {
      return false;
    }
  }

  /**
   * Settles one claimed file in a `verq.file.settle` span (the handler's own spans are its
   * children); false when the file vanished (taken over by another consumer).
   */
  async #handle(path: string, claimId: string, file: string, recovered: boolean): Promise<boolean> {
    const span = verqTracing().start("verq.file.settle", { "verq.file.recovered": recovered }, { kind: "consumer" });
    try {
      const settled = await span.run(() => this.#settle(path, claimId, file, recovered, span));
      if (!settled) span.set({ "verq.file.taken_over": true });
      return settled;
    } catch (error) {
      const code = isVerqError(error) ? error.code : "VERQ_UNEXPECTED";
      span.fail(code, { "verq.error.code": code });
      throw error;
    } finally {
      span.end();
    }
  }

  /** Settles one claimed file, naming in `span` what it came to; false when the file vanished. */
  async #settle(path: string, claimId: string, file: string, recovered: boolean, span: VerqSpan): Promise<boolean> {
    const started = performance.now();
    inFlight.add(path);
    try {
      failpoint("files.afterRename");
      if (recovered) {
        const known = await this.#ledger.findByClaim(claimId);
        const recorded = known === null ? null : settledFolder(known);
        if (known !== null && recorded !== null) {
          // Recorded before its consumer died: the file only has to go where the record says.
          const placedAs = placeFile(path, this.#dirFor(recorded), known.file, claimId);
          removeFile(path);
          this.#count({ kind: "already", message: known }, file, placedAs, true, started, span);
          return true;
        }
      }
      const errorCopy = join(this.dirs.error, file);
      const base = {
        claimId,
        owner: ownerText(this.#owner),
        file,
        recovered,
        errorCopyExists: entryExists(errorCopy) && !sameFile(path, errorCopy),
      };
      const verdict = examineFile(path, this.#maxBytes, this.#profile);
      let result: SettleResult;
      let placedAs: string;
      if (verdict.kind === "valid") {
        ({ result, placedAs } = await this.#settleValid(path, base, verdict));
      } else {
        placedAs = placeFile(path, this.dirs.error, file, claimId);
        failpoint("files.afterPlace");
        result = await this.#settleOrUnplace(this.dirs.error, placedAs, { ...base, verdict: { ...verdict, file: placedAs } });
      }
      if (result.kind === "already")
        placedAs = this.#reconcile(path, placedAs, verdict.kind === "valid" ? "done" : "error", result.message, claimId);
      failpoint("files.afterCommit");
      removeFile(path);
      this.#count(result, file, placedAs, recovered, started, span);
      return true;
    } catch (error) {
      // The file was taken over (recoverAfterMs) while this consumer held it: the other one settles it.
      if (errno(error) === "ENOENT" && !entryExists(path)) return false;
      throw error;
    } finally {
      inFlight.delete(path);
    }
  }

  async #settleValid(
    path: string,
    base: Omit<SettleInput, "verdict">,
    verdict: { processed: ProcessedMessage; fields: Record<string, unknown> },
  ): Promise<{ result: SettleResult; placedAs: string }> {
    const placedAs = placeFile(path, this.dirs.done, base.file, base.claimId);
    failpoint("files.afterPlace");
    let handlerError: { error: unknown } | null = null;
    const userHandler = this.#handler;
    const handler: ProcessedMessageHandler | undefined =
      userHandler === undefined
        ? undefined
        : async (trx, row) => {
            handlerError = null;
            try {
              await userHandler({ ...row, fields: verdict.fields, file: base.file }, trx);
            } catch (error) {
              handlerError = { error };
              throw error;
            }
          };
    try {
      const result = await this.#ledger.settle(
        { ...base, verdict: { kind: "valid", ...verdict.processed, file: placedAs } },
        handler,
      );
      return { result, placedAs };
    } catch (error) {
      removeFile(join(this.dirs.done, placedAs));
      const failed = handlerError as { error: unknown } | null;
      if (failed === null) throw error; // a store failure: the file stays in processing/ for the next start
      const errorName = placeFile(path, this.dirs.error, base.file, base.claimId);
      const result = await this.#settleOrUnplace(this.dirs.error, errorName, {
        ...base,
        verdict: { kind: "invalid", reason: "handler", detail: describeHandlerError(failed.error), file: errorName },
      });
      return { result, placedAs: errorName };
    }
  }

  async #settleOrUnplace(dir: string, placedAs: string, input: SettleInput): Promise<SettleResult> {
    try {
      return await this.#ledger.settle(input);
    } catch (error) {
      removeFile(join(dir, placedAs));
      throw error;
    }
  }

  /** After `already`: make sure the file is where the record says, not where this run put it. */
  #reconcile(path: string, placedAs: string, placedIn: "done" | "error", message: Message, claimId: string): string {
    const state = folderOf(message);
    if (state === placedIn) return placedAs;
    const moved = placeFile(path, this.#dirFor(state), message.file, claimId);
    removeFile(join(this.#dirFor(placedIn), placedAs));
    return moved;
  }

  #dirFor(folder: "done" | "error"): string {
    return folder === "error" ? this.dirs.error : this.dirs.done;
  }

  #count(result: SettleResult, file: string, placedAs: string, recovered: boolean, started: number, span: VerqSpan): void {
    const outcome = this.#counter.settled(result.message, file, placedAs, recovered);
    const { state, reason, detail } = outcome;
    // The message's id, where it went and why: never the file's contents or the error's detail.
    span.set({
      "verq.file.message_id": result.message.id,
      "verq.file.state": state,
      "verq.file.outcome": outcome.outcome,
      "verq.file.reason": reason,
    });
    this.#log?.info(
      { file, placedAs, state, outcome: outcome.outcome, reason, detail, recovered, durationMs: msSince(started) },
      "file settled",
    );
    this.#onFile?.(outcome);
  }
}
