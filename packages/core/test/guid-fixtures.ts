import { fingerprintRequest, foldGuid, guidEvents, type GuidEvent, type GuidState, type LedgerEntry } from "../src/index.ts";

export const REQUEST = '{"guid":"g-1","amount":700}';
export const FINGERPRINT = fingerprintRequest(JSON.parse(REQUEST));
export const ANSWER = '{"guid":"g-1","code":"0000","balance":999300,"seq":1}';

/** The events of a GUID that ends in `state` at time `at`, after `attempts` sends (all but the last certainly not sent). */
export function historyIn(state: GuidState, options: { at?: number; attempts?: number } = {}): GuidEvent[] {
  const at = options.at ?? 1_000;
  const attempts = options.attempts ?? (state === "RECEIVED" ? 0 : 1);
  const events: GuidEvent[] = [guidEvents.received({ guid: "g-1", request: REQUEST, fingerprint: FINGERPRINT, at })];
  for (let i = 1; i <= attempts; i++) {
    events.push(guidEvents.sent({ attempt: i, by: i === 1 ? "claim" : "channel", at }));
    if (i < attempts) events.push(guidEvents.failed({ reason: "not-sent", at }));
  }
  if (state === "DONE") events.push(guidEvents.done({ code: "0000", response: ANSWER, via: "answer", at }));
  if (state === "UNKNOWN") events.push(guidEvents.unknown({ reason: "no-answer", at }));
  if (state === "FAILED") events.push(guidEvents.failed({ reason: "not-sent", at }));
  return events;
}

/** A ledger entry in `state`: the fold of {@link historyIn}. */
export function entryIn(state: GuidState, options: { at?: number; attempts?: number } = {}): LedgerEntry {
  const entry = foldGuid(historyIn(state, options));
  if (entry === null || entry.state !== state) throw new Error(`fixture for ${state} folded to ${entry?.state}`);
  return entry;
}
