import { GUID_STATES, fingerprintRequest, foldGuid, isDefiniteCode, type GuidEvent, type LedgerEntry } from "@verq/core";
import type { StoredEvent } from "@verq/store";
import type { RelayWorld } from "./relay-world.ts";

const asEvents = (stored: readonly StoredEvent[]): GuidEvent[] =>
  stored.map((e) => ({ type: e.type, data: e.data }) as GuidEvent);
const fingerprintOf = (text: string) => fingerprintRequest(JSON.parse(text));
const amountOf = (text: string) => (JSON.parse(text) as { amount?: unknown }).amount;

/**
 * The property of the relay, checked at the end of a run once everything is settled (the core
 * finished what it got, the sweep and a reliable resolve ran). Each broken rule throws with a
 * tag:
 * - `[at-most-once]` the core processed a GUID, or the same transfer, more than once (G1, G9);
 * - `[same-guid]` the core processed a GUID the channel never sent, or a payload the ledger did
 *   not claim (G6: a reprocess keeps the GUID and the stored request);
 * - `[answers]` an answer the channel got disagrees with the ledger: a definite answer that is
 *   not the ledger's stored response byte for byte, an E901/E902 without the ledger ever being
 *   UNKNOWN/FAILED, an E422 for the claimed payload (G3);
 * - `[ledger]` the ledger disagrees with the core: DONE without a processing, FAILED although
 *   processed, an entry lost, an UNKNOWN left after a reliable resolve (G5, G8);
 * - `[purge]` an entry purged that was not DONE, or younger than the retention (G7);
 * - `[rebuild]` the `ledger` projection is not the fold of its events.
 */
export async function checkRelay(world: RelayWorld): Promise<void> {
  const { bank } = world.core;
  const history = world.history;
  const claimed = (guid: string) => {
    const received = history.get(guid)?.find((e) => e.type === "guid.received");
    return (received?.data as { fingerprint?: string } | undefined)?.fingerprint;
  };
  const audit = await world.ledger.purges();
  const purged = new Set(audit.flatMap((e) => e.data.guids));

  // G7: a purge deletes only entries last changed at least the retention before it.
  for (const { position, data } of audit) {
    for (const guid of data.guids) {
      const earlier = (history.get(guid) ?? []).filter((e) => e.position < position);
      const stream = earlier.slice(earlier.findLastIndex((e) => e.type === "guid.received"));
      const last = stream.at(-1);
      if (last !== undefined && data.at - last.at < data.retentionMs)
        fail(
          "purge",
          `${guid} was purged ${data.at - last.at} ms after its last change, within the retention of ${data.retentionMs} ms`,
        );
    }
  }

  // At most once: per GUID, and per transfer (each GUID's amount is its own in these runs).
  const byAmount = new Map<unknown, string[]>();
  for (const [guid, calls] of bank.callsByGuid()) {
    if (calls > 1) fail("at-most-once", `the core processed ${guid} ${calls} times`);
    for (const text of bank.requests(guid)) byAmount.set(amountOf(text), [...(byAmount.get(amountOf(text)) ?? []), guid]);
  }
  for (const [amount, guids] of byAmount) {
    if (guids.length > 1)
      fail("at-most-once", `the transfer of ${String(amount)} was processed ${guids.length} times, as ${guids.join(", ")}`);
  }

  // The core only sees the channel's GUIDs, each with the payload its ledger entry claimed.
  for (const [guid] of bank.callsByGuid()) {
    if (!world.firstSend.has(guid)) fail("same-guid", `the core processed ${guid}, a GUID the channel never sent`);
    for (const text of bank.requests(guid)) {
      if (fingerprintOf(text) !== claimed(guid))
        fail("same-guid", `the core processed ${guid} with a payload the ledger did not claim`);
    }
  }

  // Every answer the channel got agrees with the ledger.
  for (const { guid, text, reply } of world.answers) {
    if (reply === null) continue;
    const events = history.get(guid) ?? [];
    const code = (JSON.parse(reply.body) as { code?: unknown }).code;
    const same = fingerprintOf(text) === claimed(guid);
    if (reply.status === 422) {
      if (code !== "E422" || same) fail("answers", `${guid}: E422 (${String(code)}) for the payload the ledger claimed`);
      continue;
    }
    if (reply.status !== 200) fail("answers", `${guid}: HTTP ${reply.status} ${reply.body}`);
    if (!same) fail("answers", `${guid}: answered ${String(code)} to a payload the ledger did not claim`);
    if (isDefiniteCode(code)) {
      const done = events.find((e) => e.type === "guid.done");
      if ((done?.data as { response?: string } | undefined)?.response !== reply.body) {
        fail(
          "answers",
          `${guid}: the channel got ${reply.body}, the ledger stored ${JSON.stringify((done?.data as { response?: string } | undefined)?.response ?? null)}`,
        );
      }
    } else if (code === "E901") {
      if (!events.some((e) => e.type === "guid.unknown")) fail("answers", `${guid}: E901 but the ledger was never UNKNOWN`);
    } else if (code === "E902") {
      if (!events.some((e) => e.type === "guid.failed")) fail("answers", `${guid}: E902 but the ledger was never FAILED`);
    } else if (code !== "E903") {
      fail("answers", `${guid}: unexpected answer ${reply.body}`);
    }
  }

  // The settled ledger agrees with the core.
  const entries = new Map<string, LedgerEntry>((await world.ledger.list(GUID_STATES, 10_000)).map((e) => [e.guid, e]));
  for (const guid of world.firstSend.keys()) {
    const calls = bank.calls(guid);
    const folded = foldGuid(asEvents(history.get(guid) ?? []));
    if (purged.has(guid)) {
      if (folded?.state !== "DONE") fail("purge", `${guid} was purged while ${folded?.state ?? "unknown to the ledger"}`);
      if (calls !== 1 || folded?.response !== bank.inquire(guid))
        fail("ledger", `${guid} was purged as DONE but the core processed it ${calls} times`);
      continue;
    }
    const entry = entries.get(guid);
    if (entry === undefined) {
      fail("ledger", `the entry of ${guid} is gone although it was never purged as DONE (last seen ${folded?.state ?? "never"})`);
    } else if (entry.state === "DONE") {
      if (calls !== 1 || entry.response !== bank.inquire(guid))
        fail("ledger", `${guid} is DONE but the core processed it ${calls} times`);
    } else if (entry.state === "FAILED") {
      if (calls !== 0) fail("ledger", `${guid} is FAILED (certainly not sent) but the core processed it ${calls} times`);
    } else {
      fail("ledger", `${guid} is still ${entry.state} after the sweep and a reliable resolve`);
    }
  }

  // The projection is the fold of the events.
  const live = await world.ledger.list(GUID_STATES, 10_000);
  await world.ledger.rebuild();
  const rebuilt = await world.ledger.list(GUID_STATES, 10_000);
  if (JSON.stringify(rebuilt) !== JSON.stringify(live))
    fail("rebuild", "the ledger rebuilt from its events differs from the live projection");
}

function fail(tag: string, message: string): never {
  throw new Error(`[${tag}] ${message}`);
}
