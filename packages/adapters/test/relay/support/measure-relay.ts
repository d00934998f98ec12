/**
 * Throughput and added latency of the relay over the test core, on 127.0.0.1. Not a test: run
 * it by hand from the repository root:
 *
 *   node --import tsx packages/adapters/test/relay/support/measure-relay.ts [requests] [concurrency]
 *
 * The relay runs as its own process (`verq relay serve`, SQLite in WAL mode on a temp file);
 * the test core and the load generator share this process. For each of "core direct" and
 * "through the relay" it sends new GUIDs, one at a time (latency) and `concurrency` at a time
 * (requests per second), then resends every GUID once (answered from the ledger).
 */
import { startRelayProcess, tempDir, TestCore } from "@verq/testing";

const total = Number(process.argv[2] ?? 2_000);
const concurrency = Number(process.argv[3] ?? 16);

async function post(url: string, body: string): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
}

async function sequential(url: string, prefix: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await post(url, JSON.stringify({ guid: `${prefix}-${i}`, amount: 1 }));
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

async function concurrent(url: string, prefix: string, n: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await post(url, JSON.stringify({ guid: `${prefix}-${next++}`, amount: 1 }));
    }),
  );
  return (n / (performance.now() - start)) * 1_000;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const ms = (x: number) => `${x.toFixed(2)} ms`;

const dir = tempDir("verq-relay-measure-");
const core = await TestCore.start({ openingBalance: Number.MAX_SAFE_INTEGER });
const relay = await startRelayProcess(`${dir.path}/ledger.sqlite`, core.url);
try {
  const direct = `${core.url}/transfer`;
  await sequential(direct, "warm-d", 1_000);
  await sequential(relay.url, "warm-r", 1_000);
  const latencyDirect = await sequential(direct, "lat-d", Math.min(total, 1_000));
  const latencyRelay = await sequential(relay.url, "lat-r", Math.min(total, 1_000));
  const rpsDirect = await concurrent(direct, "rps-d", total);
  const rpsRelay = await concurrent(relay.url, "rps-r", total);
  const rpsReplay = await concurrent(relay.url, "rps-r", total);
  console.log(`node ${process.version}, ${total} requests, concurrency ${concurrency}`);
  console.log(
    `core direct:       p50 ${ms(pct(latencyDirect, 50))}  p99 ${ms(pct(latencyDirect, 99))}  ${rpsDirect.toFixed(0)} req/s`,
  );
  console.log(
    `through the relay: p50 ${ms(pct(latencyRelay, 50))}  p99 ${ms(pct(latencyRelay, 99))}  ${rpsRelay.toFixed(0)} req/s (new GUIDs)`,
  );
  console.log(`relay, resends:    ${rpsReplay.toFixed(0)} req/s (DONE, answered from the ledger, core not called)`);
  console.log(
    `added latency:     p50 +${ms(pct(latencyRelay, 50) - pct(latencyDirect, 50))}  p99 +${ms(pct(latencyRelay, 99) - pct(latencyDirect, 99))}`,
  );
  console.log(`core calls: ${core.totalCalls} for ${1_000 + 1_000 + 2 * Math.min(total, 1_000) + 2 * total} distinct GUIDs sent`);
} finally {
  await relay.stop();
  await core.close();
  dir.remove();
}
