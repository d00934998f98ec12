import { decideGuid, isValidGuid, newGuidEntry, type GuidCommand } from "@verq/core";
import type { LedgerChange } from "@verq/store";
import { checkDecided, checkNothingElse } from "./check-decided.ts";
import { answerOf, json, ledgerFail, type LedgerWorld } from "./ledger-world.ts";

/**
 * Runs one `GuidLedger` method that changes one entry (send, record, resolve, reprocess) and
 * checks it against `decideGuid(entry, command)`: the events and row (see `checkDecided`), and
 * the answer: the entry after when accepted, the refusal and the entry as it is when refused,
 * `VERQ_UNKNOWN_GUID` for a GUID with no entry (the machine refuses it as `unknown-guid`) and
 * `VERQ_INVALID_GUID` for an argument that is not a GUID (checked before anything is decided).
 */
export async function runChange(
  m: LedgerWorld,
  tag: string,
  guid: string,
  command: GuidCommand,
  call: () => Promise<LedgerChange>,
): Promise<void> {
  const before = m.entries.get(guid) ?? newGuidEntry(guid);
  const expected = decideGuid(before, command);
  const result = await call().catch((error: unknown) => error);
  await checkDecided(m, tag, guid, before, expected);
  await checkNothingElse(m, tag);
  let want: unknown;
  if (expected.accepted) want = { accepted: true, entry: expected.after };
  else if (expected.refusal === "unknown-guid") want = { error: isValidGuid(guid) ? "VERQ_UNKNOWN_GUID" : "VERQ_INVALID_GUID" };
  else want = { accepted: false, refusal: expected.refusal, entry: before };
  if (json(answerOf(result)) !== json(want))
    ledgerFail(`${tag} result`, `${tag} of ${json(guid)} answered ${json(answerOf(result))}, expected ${json(want)}`);
}
