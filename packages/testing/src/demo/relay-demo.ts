import { ManualClock } from "@verq/core";
import { GuidLedger, type VerqStore } from "@verq/store";
import { createHttpCoreClient, createRelayServer, RelayService } from "@verq/adapters/relay";
import { TestCore } from "../relay/test-core.ts";

const CORE_TIMEOUT_MS = 1_000;
const CHANNEL_TIMEOUT_MS = 100;
const MIN_AGE_MS = 600_000;

/**
 * The story of SPEC G1–G9 over real HTTP on 127.0.0.1, told in a few lines: a channel that
 * resends on timeout and a ledger that stops the second debit; an answer lost after the core
 * processed it (UNKNOWN), resolved by inquiry only once older than the min age; a core that
 * refused the connection (FAILED), reprocessed with the same GUID. The core is the test core,
 * which debits again for every call it gets. The ledger runs on a manual clock, so the ages
 * printed are exact.
 */
export async function runRelayDemo(store: VerqStore, print: (line: string) => void): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
  const start = clock.now();
  const t = () => `t+${((clock.now() - start) / 1000).toFixed(3)}s`;
  const core = await TestCore.start({ openingBalance: 1_000_000 });
  const ledger = new GuidLedger(store, { clock });
  const relay = new RelayService({ ledger, core: createHttpCoreClient({ url: core.url, timeoutMs: CORE_TIMEOUT_MS }) });
  const app = createRelayServer({ relay });
  const url = `${await app.listen({ port: 0, host: "127.0.0.1" })}/transfer`;
  const channel = async (guid: string, amount: number, timeoutMs = 5_000): Promise<string> => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ guid, amount, to: "ACC-42" }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return await response.text();
    } catch {
      return "no answer in time";
    }
  };
  const untilSettled = async (guid: string) => {
    for (let i = 0; i < 500; i++) {
      const entry = await ledger.get(guid);
      if (entry !== null && entry.state !== "RECEIVED" && entry.state !== "SENT") return entry;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`demo: ${guid} did not settle`);
  };
  try {
    print(
      `${t()} core (not idempotent: each call debits) and relay on 127.0.0.1; relay waits ${CORE_TIMEOUT_MS} ms for the core, the channel ${CHANNEL_TIMEOUT_MS} ms for the relay`,
    );

    core.delay(600);
    print(
      `${t()} channel sends T-1001 (700): ${await channel("T-1001", 700, CHANNEL_TIMEOUT_MS)}; it resends with the same GUID`,
    );
    print(
      `${t()} resend of T-1001 while the core is still working: ${await channel("T-1001", 700)} (in progress, not sent again)`,
    );
    const first = await untilSettled("T-1001");
    core.delay(0);
    const again = await channel("T-1001", 700);
    print(
      `${t()} the first call finishes: ${first.state} ${first.code}; the next resend gets the stored answer, byte for byte: ${again === first.response}`,
    );
    print(`${t()} core calls for T-1001: ${core.calls("T-1001")}; balance ${core.bank.balance} (debited once)`);

    core.dropAnswers();
    print(`${t()} channel sends T-1002 (250); the core debits, then its answer is lost: ${await channel("T-1002", 250)}`);
    core.dropAnswers(false);
    print(
      `${t()} resend of T-1002: ${await channel("T-1002", 250)} (UNKNOWN: the core is not called; calls so far ${core.calls("T-1002")})`,
    );
    const early = await relay.resolve({ minAgeMs: MIN_AGE_MS });
    print(
      `${t()} resolve --min-age 10m: ${early.young.length} UNKNOWN younger than the min age, left alone (it may still be in flight)`,
    );
    clock.advance(MIN_AGE_MS);
    const late = await relay.resolve({ minAgeMs: MIN_AGE_MS });
    print(`${t()} resolve --min-age 10m: asks the core's inquiry API; DONE ${late.done.join(", ")}`);
    const settled = await ledger.get("T-1002");
    print(
      `${t()} resend of T-1002 now gets the core's original answer: ${(await channel("T-1002", 250)) === settled?.response}; core calls ${core.calls("T-1002")}`,
    );

    await core.refuseConnections();
    print(`${t()} the core refuses connections; channel sends T-1003 (50): ${await channel("T-1003", 50)} (certainly not sent)`);
    await core.acceptConnections();
    const again3 = await relay.reprocess({ maxAttempts: 3 });
    const item = again3.items.find((i) => i.guid === "T-1003");
    const outcome = item === undefined || item.outcome === "gone" ? "?" : `${item.state} after ${item.attempts} attempts`;
    print(`${t()} the core is back; reprocess --max-attempts 3 sends T-1003 again with the same GUID: ${outcome}`);
    print(`${t()} resend of T-1003: ${await channel("T-1003", 50)}`);

    const stats = await relay.stats();
    const calls = [...core.bank.callsByGuid()].map(([guid, n]) => `${guid}=${n}`).join(" ");
    print(
      `${t()} ledger: ${Object.entries(stats.byState)
        .map(([s, n]) => `${s}=${n}`)
        .join(" ")}; attempts ${stats.attempts.total}; core calls ${calls}: no GUID debited twice`,
    );
  } finally {
    await app.close();
    await core.close();
  }
}
