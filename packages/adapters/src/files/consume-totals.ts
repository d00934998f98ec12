import { settledFolder, type Message, type MessageErrorReason } from "@verq/core";

/** What happened to one file. */
export interface FileOutcome {
  /** The file's name in the inbox, shortened at the claim when too long (see `queueName`). */
  readonly file: string;
  /** Its name in `done/` or `error/` (the inbox name unless another file held it). */
  readonly placedAs: string;
  readonly state: "done" | "error";
  readonly outcome: "recorded" | "duplicate" | null;
  readonly reason: MessageErrorReason | null;
  readonly detail: string | null;
  /** True when it was taken over from `processing/`, left there by a consumer that died. */
  readonly recovered: boolean;
}

/** Counts of one consumer's work. */
export interface ConsumeTotals {
  /** Files moved to `done/`: recorded plus duplicates. */
  readonly done: number;
  readonly error: number;
  readonly recorded: number;
  readonly duplicates: number;
  /** Files taken over from `processing/` (already counted in done or error). */
  readonly recovered: number;
  /** Inbox files that could not be claimed (e.g. a name too long for `processing/`), with the error code. */
  readonly skipped: readonly { readonly file: string; readonly code: string }[];
}

/**
 * Where the file of a settled `message` belongs (core's `settledFolder`); throws for a message
 * that is not settled, which a settle never answers with.
 */
export function folderOf(message: Message): "done" | "error" {
  const folder = settledFolder(message);
  if (folder === null) throw new Error(`message ${message.id} is ${message.state}, not settled`);
  return folder;
}

/** One consumer's counts, and the outcome of each settled file as it counts it. */
export class ConsumeCounter {
  readonly #skipped = new Map<string, string>();
  #totals = { done: 0, error: 0, recorded: 0, duplicates: 0, recovered: 0 };

  /** The counts so far. */
  totals(): ConsumeTotals {
    return { ...this.#totals, skipped: [...this.#skipped].map(([file, code]) => ({ file, code })) };
  }

  /** True when the inbox file `name` could not be claimed before: it is not tried again. */
  isSkipped(name: string): boolean {
    return this.#skipped.has(name);
  }

  /** Remembers that the inbox file `name` could not be claimed, with the error code. */
  skip(name: string, code: string): void {
    this.#skipped.set(name, code);
  }

  /** Counts the file settled as `message` and returns its outcome. */
  settled(message: Message, file: string, placedAs: string, recovered: boolean): FileOutcome {
    const state = folderOf(message);
    if (state === "error") this.#totals.error++;
    else {
      this.#totals.done++;
      if (message.outcome === "duplicate") this.#totals.duplicates++;
      else this.#totals.recorded++;
    }
    if (recovered) this.#totals.recovered++;
    return { file, placedAs, state, outcome: message.outcome, reason: message.reason, detail: message.detail, recovered };
  }
}
