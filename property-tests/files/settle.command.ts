import fc from "fast-check";
import {
  MESSAGE_ERROR_REASONS,
  decideMessage,
  messageCommands,
  newMessage,
  type MessageDecision,
  type MessageVerdictFacts,
} from "@verq/core";
import type { MessageVerdict, SettleResult } from "@verq/store";
import { checkDecided, checkSameMessage } from "./check-decided.ts";
import type { FilesCommand } from "./files-command.ts";
import { KEYS, fileNames, filesFail, messageByClaim, openMessage, type FilesWorld } from "./files-world.ts";

/**
 * `FileLedger.settle` of one claimed file: a new claim of a file, or a claim settled before
 * settled again (a consumer that died after its commit), with a valid verdict (a key from a
 * small set) or an invalid one, and whether `error/` holds a file of that name. The ledger must
 * write exactly what `decideMessage` decides for `message.settle` from the message the file
 * is, with `inserted` true exactly when the key was not yet recorded (SPEC F3), and answer
 * accordingly: the outcome, `already` for `already-settled`, `VERQ_MESSAGE_REFUSED` otherwise.
 */
export class SettleCommand implements FilesCommand {
  constructor(
    /** null: a new claim; else an index into the claims issued so far. */
    readonly again: number | null,
    readonly file: string,
    readonly errorCopyExists: boolean,
    readonly recovered: boolean,
    /** The verdict; its `file` (the name in `done/` or `error/`) is the claim's, or that name with `~1` when `renamed`. */
    readonly verdict: VerdictDraw,
    readonly renamed: boolean,
  ) {}

  static arbitrary(): fc.Arbitrary<FilesCommand> {
    const valid = fc.record({
      kind: fc.constant("valid" as const),
      key: fc.constantFrom(...KEYS),
      group: fc.constant("O-1"),
      sequence: fc.integer({ min: 1, max: 3 }),
      amount: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
      message: fc.constant("{}"),
    });
    const invalid = fc.record({
      kind: fc.constant("invalid" as const),
      reason: fc.constantFrom(...MESSAGE_ERROR_REASONS),
      detail: fc.constant("missing: amount"),
    });
    return fc
      .tuple(
        fc.option(fc.nat(), { nil: null, freq: 3 }),
        fileNames(),
        fc.nat(3).map((n) => n === 0),
        fc.boolean(),
        fc.oneof(valid, invalid),
        fc.nat(5).map((n) => n === 0),
      )
      .map(
        ([again, file, errorCopyExists, recovered, verdict, renamed]) =>
          new SettleCommand(again, file, errorCopyExists, recovered, verdict, renamed),
      );
  }

  check(): boolean {
    return true;
  }

  async run(m: FilesWorld): Promise<void> {
    m.clock.advance(1);
    const now = m.clock.now();
    const earlier = this.again === null || m.claims.length === 0 ? undefined : m.claims[this.again % m.claims.length];
    const claimId = earlier?.claimId ?? `c${m.claims.length + 1}`;
    const file = earlier?.file ?? this.file;
    if (earlier === undefined) m.claims.push({ claimId, file });

    const id = messageByClaim(m, claimId)?.id ?? openMessage(m, file, this.errorCopyExists)?.id ?? claimId;
    const before = m.messages.get(id) ?? newMessage(id);
    await checkSameMessage(m, id, before);
    const placed: MessageVerdict = { ...this.verdict, file: this.renamed ? `${file}~1` : file };
    const verdict: MessageVerdictFacts = placed.kind === "valid" ? { ...placed, inserted: !m.keys.has(placed.key) } : placed;
    const input = { claimId, owner: "1@host", file, recovered: this.recovered, verdict };
    const expected = decideMessage(before, messageCommands.settle({ ...input, now }));

    const eventsBefore = await m.store.countEvents();
    const result = await m.ledger
      .settle({ ...input, errorCopyExists: this.errorCopyExists, verdict: placed })
      .catch((error: unknown) => error);
    await checkDecided(m, "settle", id, before, expected, eventsBefore);
    checkResult(result, expected, before);
    if (expected.accepted && verdict.kind === "valid" && verdict.inserted) m.keys.add(verdict.key);
    const keys = (await m.ledger.processed()).map((r) => r.msg_id);
    if (keys.join() !== [...m.keys].sort().join())
      filesFail("settle processed", `processed holds ${keys.join()}, model ${[...m.keys].join()}`);
  }

  toString(): string {
    const claim = this.again === null ? "new claim" : `claim #${this.again} again`;
    const verdict = this.verdict.kind === "valid" ? `valid ${this.verdict.key}` : `invalid ${this.verdict.reason}`;
    return `settle(${claim}, ${this.file}, ${verdict}${this.renamed ? ", renamed" : ""}${this.errorCopyExists ? ", error copy" : ""})`;
  }
}

type VerdictDraw =
  Omit<Extract<MessageVerdict, { kind: "valid" }>, "file"> | Omit<Extract<MessageVerdict, { kind: "invalid" }>, "file">;

function checkResult(result: unknown, expected: MessageDecision, before: SettleResult["message"]): void {
  const got = JSON.stringify(result instanceof Error ? { error: (result as { code?: string }).code } : result);
  let want: unknown;
  if (expected.accepted) {
    const last = expected.events.at(-1)?.type;
    const kind = last === "message.recorded" ? "recorded" : last === "message.duplicated" ? "duplicate" : "rejected";
    want = { kind, message: expected.after };
  } else if (expected.refusal === "already-settled") want = { kind: "already", message: before };
  else want = { error: "VERQ_MESSAGE_REFUSED" };
  if (got !== JSON.stringify(want)) filesFail("settle result", `settle answered ${got}, expected ${JSON.stringify(want)}`);
}
