import { classifyCoreCall, isVerqError, type LedgerEntry } from "@verq/core";
import { verqTracing, type GuidLedger, type VerqLogger, type VerqSpan } from "@verq/store";
import { failpoint } from "../failpoints.ts";
import { msSince } from "../log-fields.ts";
import type { CoreClient } from "./core-client.ts";

/**
 * The named crash boundaries of the relay (docs/failpoints.md):
 * - `relay.afterClaim`: the entry is RECEIVED, the core not yet called;
 * - `relay.afterCoreCall`: the core call ended, its outcome not yet recorded (the entry is SENT);
 * - `relay.afterRecord`: the outcome is recorded, the channel not yet answered.
 */
export type RelayBoundary = "relay.afterClaim" | "relay.afterCoreCall" | "relay.afterRecord";

/** What the relay's operations share: the ledger, the core and, optionally, a logger. */
export interface RelayContext {
  readonly ledger: GuidLedger;
  readonly core: CoreClient;
  readonly logger?: VerqLogger | undefined;
}

/**
 * Hands a SENT entry to the core and records the outcome (SPEC G4: the claim was written
 * before; the result is written after). Returns the entry as the ledger holds it afterwards —
 * when the record is refused (the entry moved on meanwhile), as it is. Nothing here catches:
 * a crash between the steps leaves the entry SENT, for the recovery sweep. Logs the transition
 * at debug: guid, attempt, `from` SENT, `to` the state recorded, the core call's `coreMs`.
 * Traced as `verq.relay.send` (the core call, active while it runs, so an HTTP instrumentation
 * carries the trace to the core) and `verq.relay.record`, children of the active context.
 */
export async function deliver(context: RelayContext, entry: LedgerEntry): Promise<LedgerEntry> {
  const tracing = verqTracing();
  const about = { "verq.relay.guid": entry.guid, "verq.relay.attempt": entry.attempts };
  const started = performance.now();
  const send = tracing.start("verq.relay.send", about, { kind: "client" });
  const result = await traced(send, async () => {
    const called = await context.core.transfer(entry.guid, entry.request);
    send.set({
      "verq.relay.call": called.kind,
      "verq.relay.core_status": called.kind === "answered" ? called.status : undefined,
    });
    if (called.kind !== "answered") send.fail(called.kind);
    return called;
  });
  const coreMs = msSince(started);
  failpoint("relay.afterCoreCall" satisfies RelayBoundary);
  const record = tracing.start("verq.relay.record", about);
  const change = await traced(record, async () => {
    const recorded = await context.ledger.record(entry.guid, entry.attempts, classifyCoreCall(entry.guid, result));
    record.set({ "verq.relay.state": recorded.entry.state, "verq.relay.accepted": recorded.accepted });
    return recorded;
  });
  failpoint("relay.afterRecord" satisfies RelayBoundary);
  context.logger?.debug(
    { guid: entry.guid, attempt: entry.attempts, from: entry.state, to: change.entry.state, accepted: change.accepted, coreMs },
    "core called",
  );
  return change.entry;
}

/** Runs `work` in `span` and ends it; a failure marks it with its stable code, never its message. */
async function traced<T>(span: VerqSpan, work: () => Promise<T>): Promise<T> {
  try {
    return await span.run(work);
  } catch (error) {
    const code = isVerqError(error) ? error.code : "VERQ_UNEXPECTED";
    span.fail(code, { "verq.error.code": code });
    throw error;
  } finally {
    span.end();
  }
}
