/**
 * Group 4: what the GUID relay costs per request. A no-op core (node:http, answers a valid
 * `{"guid","code":"0000"}` at once) and the relay (Fastify, SQLite ledger) both run in this
 * process on 127.0.0.1, next to the load generator: node:http with a keep-alive agent, 16
 * requests in flight, each with a new GUID. The relay row measures the core directly and then
 * through the relay in the same run, so its added p50/p99 compare like with like. The replay
 * row resends GUIDs already DONE: answered from the ledger, the core not called. One event
 * loop carries client, relay and core, so req/s is for the three together.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { GuidLedger, openStore } from "@verq/store";
import { createHttpCoreClient, createRelayServer, RelayService } from "@verq/adapters/relay";
import { lower, perSecond, percentile, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

const GROUP = "4a. relay over a no-op core on 127.0.0.1, 16 in flight";
const CONCURRENCY = 16;
const ADDED_GROUP = "4b. relay added latency, one request at a time";
const WARM_UP = 200;

/** One answer as the load generator saw it. */
interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** A core that does nothing: it reads the transfer, answers the GUID with `0000`, and counts. */
interface NoOpCore {
  readonly port: number;
  readonly calls: () => number;
  close(): Promise<void>;
}

async function startNoOpCore(): Promise<NoOpCore> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let guid: unknown;
      try {
        guid = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { guid?: unknown }).guid;
      } catch {
        guid = undefined;
      }
      const ok = req.method === "POST" && req.url === "/transfer" && typeof guid === "string";
      if (ok) calls++;
      const body = ok ? JSON.stringify({ guid, code: "0000" }) : JSON.stringify({ error: "not a transfer" });
      res.writeHead(ok ? 200 : 400, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function post(agent: Agent, port: number, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: "127.0.0.1",
        port,
        path: "/transfer",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends `guids` at `concurrency` ({@link CONCURRENCY} by default) in flight; checks every answer; returns the wall time and each request's latency. */
async function load(
  agent: Agent,
  port: number,
  guids: readonly string[],
  check: (guid: string, answer: Answer) => string | null,
  concurrency = CONCURRENCY,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = new Array<number>(guids.length);
  let next = 0;
  let failed = false; // one bad answer stops every sender, so nothing is in flight when the rig closes
  const start = performance.now();
  const senders = await Promise.allSettled(
    Array.from({ length: concurrency }, async () => {
      while (next < guids.length && !failed) {
        const i = next++;
        const guid = guids[i] as string;
        const sent = performance.now();
        try {
          const answer = await post(agent, port, JSON.stringify({ guid, amount: 1 }));
          latencies[i] = since(sent);
          const problem = check(guid, answer);
          if (problem !== null) throw new Error(`${guid}: ${problem} (HTTP ${answer.status}: ${answer.text.slice(0, 200)})`);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  const ms = since(start);
  const refused = senders.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (refused !== undefined) throw refused.reason instanceof Error ? refused.reason : new Error(String(refused.reason));
  return { ms, latencies };
}

const codeOf = (text: string): unknown => {
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
};

/** A valid answer of the core itself. */
const coreAnswered = (_guid: string, a: Answer): string | null =>
  a.status === 200 && codeOf(a.text) === "0000" ? null : "not the core's 0000 answer";

/** The relay forwarded a new GUID and recorded it DONE. */
const relayedNew = (guid: string, a: Answer): string | null =>
  coreAnswered(guid, a) ??
  (a.headers["verq-ledger-state"] === "DONE" && a.headers["idempotent-replayed"] === "false" ? null : "not a fresh DONE");

/** The relay answered from the ledger. */
const replayed = (guid: string, a: Answer): string | null =>
  coreAnswered(guid, a) ??
  (a.headers["verq-ledger-state"] === "DONE" && a.headers["idempotent-replayed"] === "true" ? null : "not a replay");

const guidsFor = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** A core, a relay over a fresh SQLite file, and a keep-alive client; `close()` stops all of them and removes the file. */
async function rig(size: BenchSize) {
  const dir = mkdtempSync(join(size.dir, "relay-"));
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const core = await startNoOpCore();
  const store = await openStore({ path: join(dir, "ledger.sqlite"), journalMode: "wal", synchronous: "normal" });
  const relay = new RelayService({
    ledger: new GuidLedger(store),
    core: createHttpCoreClient({ url: `http://127.0.0.1:${core.port}` }),
  });
  const app = createRelayServer({ relay });
  let relayPort: number;
  try {
    await app.listen({ port: 0, host: "127.0.0.1" });
    relayPort = (app.server.address() as AddressInfo).port;
  } catch (error) {
    await app.close();
    await core.close();
    await store.close();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    agent,
    core,
    corePort: core.port,
    relayPort,
    relay,
    async close(): Promise<void> {
      agent.destroy();
      await app.close();
      await core.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Rig = Awaited<ReturnType<typeof rig>>;

/** Warm both paths (JIT, sockets, prepared statements) with requests that are not measured. */
async function warmUp(r: Rig): Promise<void> {
  await load(r.agent, r.corePort, guidsFor("warm-d", WARM_UP), coreAnswered);
  await load(r.agent, r.relayPort, guidsFor("warm-r", WARM_UP), relayedNew);
}

/** The core must have been called once per GUID sent, and the ledger must hold them all DONE. */
async function verifyLedger(r: Rig, relayed: number, coreCalls: number): Promise<void> {
  if (r.core.calls() !== coreCalls) throw new Error(`the core was called ${r.core.calls()} times; expected ${coreCalls}`);
  const stats = await r.relay.stats();
  if (stats.total !== relayed || stats.byState.DONE !== relayed) {
    throw new Error(`the ledger holds ${stats.total} entries, ${stats.byState.DONE} DONE; expected ${relayed} DONE`);
  }
}

async function measured<T>(size: BenchSize, work: (r: Rig) => Promise<T>): Promise<T> {
  const r = await rig(size);
  try {
    await warmUp(r);
    return await work(r);
  } finally {
    await r.close();
  }
}

const latencyFigures = (n: number, run: { ms: number; latencies: number[] }): Record<string, Figure> => ({
  "req/s": perSecond(n, run.ms, "req/s"),
  "p50 ms": lower(percentile(run.latencies, 50), "ms"),
  "p99 ms": lower(percentile(run.latencies, 99), "ms"),
});

/** The relay row (new GUIDs through the relay), the direct baseline, and resends answered from the ledger. */
export function relayScenarios(): Scenario[] {
  const common = `${CONCURRENCY} in flight, node:http keep-alive client, new GUID each, ${WARM_UP} + ${WARM_UP} warm-up requests`;
  return [
    {
      group: GROUP,
      system: "direct to the core",
      settings: `client → no-op core; ${common}`,
      run: (size) =>
        measured(size, async (r) => {
          const direct = await load(r.agent, r.corePort, guidsFor("d", size.requests), coreAnswered);
          await verifyLedger(r, WARM_UP, 2 * WARM_UP + size.requests);
          return latencyFigures(size.requests, direct);
        }),
    },
    {
      group: GROUP,
      system: "verq (new GUIDs)",
      settings: `client → relay (Fastify; a read, then claim, SENT and record: 3 SQLite write transactions, each shared by the requests that reach it together (group commit), WAL, synchronous=NORMAL) → no-op core; ${common}`,
      run: (size) =>
        measured(size, async (r) => {
          const relayed = await load(r.agent, r.relayPort, guidsFor("r", size.requests), relayedNew);
          await verifyLedger(r, WARM_UP + size.requests, 2 * WARM_UP + size.requests);
          return latencyFigures(size.requests, relayed);
        }),
    },
    {
      group: ADDED_GROUP,
      system: "verq",
      settings: `one request at a time (no queueing), new GUID each: relay − direct to the same no-op core, both measured in this run, interleaved in blocks of 100`,
      run: (size) =>
        measured(size, async (r) => {
          const direct: number[] = [];
          const relayed: number[] = [];
          const n = Math.max(100, Math.floor(size.requests / 5));
          for (let block = 0; block < n; block += 100) {
            direct.push(...(await load(r.agent, r.corePort, guidsFor(`d${block}`, 100), coreAnswered, 1)).latencies);
            relayed.push(...(await load(r.agent, r.relayPort, guidsFor(`r${block}`, 100), relayedNew, 1)).latencies);
          }
          const blocks = Math.ceil(n / 100) * 100;
          await verifyLedger(r, WARM_UP + blocks, 2 * WARM_UP + 2 * blocks);
          return {
            "direct p50 ms": lower(percentile(direct, 50), "ms"),
            "relay p50 ms": lower(percentile(relayed, 50), "ms"),
            "added p50 ms": lower(percentile(relayed, 50) - percentile(direct, 50), "ms"),
            "added p99 ms": lower(percentile(relayed, 99) - percentile(direct, 99), "ms"),
          };
        }),
    },
    {
      group: GROUP,
      system: "verq (replays)",
      settings: `replay of a stored answer: the same GUIDs again, each DONE, answered from the ledger (one read, no write transaction: the guid machine refuses the repeat against the entry as read), the core not called; ${common}`,
      run: (size) =>
        measured(size, async (r) => {
          const guids = guidsFor("r", size.requests);
          await load(r.agent, r.relayPort, guids, relayedNew);
          const again = await load(r.agent, r.relayPort, guids, replayed);
          await verifyLedger(r, WARM_UP + size.requests, 2 * WARM_UP + size.requests);
          return latencyFigures(size.requests, again);
        }),
    },
  ];
}
