import { GUID_STREAM, type GuidDecision, type GuidEntry } from "@verq/core";
import { readAllEvents } from "@verq/store";
import { selectGuidEntry } from "@verq/store/internal";
import { json, ledgerFail, streamOf, type LedgerWorld } from "./ledger-world.ts";

/**
 * The property: what a `GuidLedger` method wrote for `guid` is exactly what the real guid
 * machine decides for the same command from the same entry. `before` is the model's entry (the
 * GUID's blank when it has none); `expected` is `decideGuid(before, command)`. After the method
 * ran, the stream holds `expected.events` after `before`'s version and nothing else (none when
 * refused), and the `ledger` row is `expected.after` (unchanged when refused); a decided purge
 * leaves neither stream nor row. `tag` names the method (`receive`, `send`, …).
 */
export async function checkDecided(
  world: LedgerWorld,
  tag: string,
  guid: string,
  before: GuidEntry,
  expected: GuidDecision,
): Promise<void> {
  const purged = expected.accepted && expected.events.some((e) => e.type === "guid.purged");
  const stream = await streamOf(world, guid);
  const written = stream.slice(before.version).map((e) => ({ type: e.type, data: e.data }));
  const want = expected.accepted && !purged ? expected.events : [];
  const decided = expected.accepted ? json(expected.events) : `nothing (${expected.refusal})`;
  if (purged ? stream.length !== 0 : stream.length < before.version || json(written) !== json(want)) {
    ledgerFail(
      `${tag} events`,
      `${tag} of ${json(guid)} (${before.state}, v${before.version}) left ${stream.length} events, wrote ${json(written)}; the machine decides ${decided}`,
    );
  }
  const row = await selectGuidEntry(world.store.db, world.store.dialect, guid);
  const rowWant = purged ? null : expected.accepted ? expected.after : before.state === "NEW" ? null : before;
  if (json(row) !== json(rowWant))
    ledgerFail(`${tag} projection`, `ledger row of ${json(guid)} is ${json(row)}, expected ${json(rowWant)}`);
  if (purged) world.entries.delete(guid);
  else if (expected.accepted) world.entries.set(guid, expected.after);
}

/** Nothing but the model's streams is in the log: the method wrote no event the machine did not decide. */
export async function checkNothingElse(world: LedgerWorld, tag: string): Promise<void> {
  const stored = (await readAllEvents(world.store.db, GUID_STREAM)).length;
  const model = [...world.entries.values()].reduce((sum, e) => sum + e.version, 0);
  if (stored !== model) ledgerFail(`${tag} events`, `the log holds ${stored} guid events, the model's streams ${model}`);
}
