/**
 * The failure scenarios, in the order the table lists them. Each says where its PostgreSQL
 * runs, which systems it does not apply to and why, and injects its fault into a run that is
 * under way. A worker fault names its victim (recovery is then judged from the jobs the victim
 * was running); a fault of the whole system gives the moment it ended (recovery is then the
 * wait from that moment to the next handler run).
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { PrivatePostgres } from "@verq/testing";
import type { Recorder } from "./recorder.ts";
import { WORKER_APPLICATION, type ChaosSystem } from "./system.ts";
import type { WorkerSet } from "./worker-set.ts";

/** What a scenario's fault can reach. */
export interface FaultContext {
  readonly system: ChaosSystem;
  readonly workers: WorkerSet;
  readonly recorder: Recorder;
  /** The run's database on the scenario's server; null for a Redis system. */
  readonly database: string | null;
  /** The scenario's server, on the `postgres` database (for terminations and held connections). */
  readonly serverUrl: string | null;
  readonly privateServer: PrivatePostgres | null;
  readonly failover: (() => Promise<void>) | null;
  readonly quick: boolean;
  /** How long a handler run lasts (the recorder's delay). */
  readonly handlerMs: number;
}

/** A fault as it happened. */
export type Fault =
  | { readonly kind: "worker"; readonly at: number; readonly victim: string }
  | { readonly kind: "system"; readonly at: number; readonly end: number; readonly note?: string };

/** Where a scenario's PostgreSQL runs. */
export type ServerKind = "shared" | "private" | "ha";

export interface Scenario {
  readonly key: string;
  readonly title: string;
  readonly server: ServerKind;
  /** True when the quick run may run systems side by side: the fault reaches only the run's own workers, at little CPU. */
  readonly isolated: boolean;
  /** Why it does not apply to `system`, or null when it does. */
  notFor(system: ChaosSystem): string | null;
  inject(context: FaultContext): Promise<Fault>;
}

/**
 * How long each system takes to give a silent worker's job to another, plus a margin: a freeze
 * must outlast it to show what a late success does. graphile-worker's 4 hours cannot be waited
 * out, so its worker is frozen as long as verq's.
 */
const FREEZE_MS: Record<string, number> = { verq: 4_000, "graphile-worker": 4_000, "pg-boss": 8_000, BullMQ: 6_000 };

const postgresOnly = (system: ChaosSystem): string | null =>
  system.engine === "postgres" ? null : "BullMQ keeps its jobs in Redis; there is no PostgreSQL to disturb";

/** Resolves once the worker in `slot` is a quarter into a handler run (nothing waits if none comes within 10 s). */
async function midRun(context: FaultContext, slot: number): Promise<void> {
  const victim = context.workers.id(slot);
  const deadline = Date.now() + 10_000;
  const under = (): boolean =>
    context.recorder.runs.some((r) => r.worker === victim && r.answeredAt === null && Date.now() - r.at >= context.handlerMs / 4);
  while (!under() && Date.now() < deadline) await sleep(1);
}

/** Terminates the run's worker connections once; returns how many there were. */
async function terminateWorkers(admin: pg.Client, database: string): Promise<number> {
  const { rowCount } = await admin.query(
    "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2",
    [database, WORKER_APPLICATION],
  );
  return rowCount ?? 0;
}

async function connect(url: string, application = "chaos-admin"): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: application });
  client.on("error", () => {});
  await client.connect();
  return client;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    key: "kill",
    title: "1. worker killed mid-job (SIGKILL, restarted at once)",
    server: "shared",
    isolated: true,
    notFor: () => null,
    async inject(context) {
      await midRun(context, 0);
      const victim = context.workers.id(0);
      const at = Date.now();
      await context.workers.kill(0);
      return { kind: "worker", at, victim };
    },
  },
  {
    key: "freeze",
    title: "2. worker frozen past its lease (SIGSTOP, then SIGCONT)",
    server: "shared",
    isolated: true,
    notFor: () => null,
    async inject(context) {
      await midRun(context, 0);
      const victim = context.workers.id(0);
      const at = Date.now();
      context.workers.freeze(0, true);
      await sleep(FREEZE_MS[context.system.name] ?? 4_000);
      context.workers.freeze(0, false);
      return { kind: "worker", at, victim };
    },
  },
  {
    key: "terminate",
    title: "3. worker backends terminated every 100 ms",
    server: "shared",
    isolated: false,
    notFor: postgresOnly,
    async inject(context) {
      const admin = await connect(context.serverUrl ?? "");
      try {
        const at = Date.now();
        const until = at + (context.quick ? 3_000 : 5_000);
        let terminated = 0;
        while (Date.now() < until) {
          terminated += await terminateWorkers(admin, context.database ?? "");
          await sleep(100);
        }
        return { kind: "system", at, end: Date.now(), note: `${terminated} backends terminated` };
      } finally {
        await admin.end();
      }
    },
  },
  {
    key: "restart",
    title: "4. PostgreSQL restarted (pg_ctl restart -m fast)",
    server: "private",
    isolated: false,
    notFor: postgresOnly,
    async inject(context) {
      const at = Date.now();
      await context.privateServer?.restart();
      return { kind: "system", at, end: Date.now() };
    },
  },
  {
    key: "slots",
    title: "5. server out of connection slots (all taken, worker backends terminated)",
    server: "private",
    isolated: false,
    notFor: postgresOnly,
    async inject(context) {
      const admin = await connect(context.serverUrl ?? "");
      const held: pg.Client[] = [];
      try {
        const at = Date.now();
        // Every slot, the superuser's reserve included (the workers connect as a superuser too);
        // the slots the terminated workers free are taken again as fast as they come back.
        const fill = async (): Promise<void> => {
          for (;;) {
            // Ten at a time: one by one, the run would be over before the server is full.
            const opened = await Promise.allSettled(
              Array.from({ length: 10 }, async () => {
                const client = await connect(context.serverUrl ?? "", "chaos-hog");
                held.push(client);
                await client.query("begin");
              }),
            );
            if (opened.some((o) => o.status === "rejected")) return;
          }
        };
        await fill();
        await terminateWorkers(admin, context.database ?? "");
        const until = Date.now() + (context.quick ? 3_000 : 5_000);
        while (Date.now() < until) {
          await fill();
          await sleep(20);
        }
        return { kind: "system", at, end: Date.now(), note: `${held.length} connections held idle in transaction` };
      } finally {
        await Promise.all(held.map((c) => c.end().catch(() => undefined)));
        await admin.end();
      }
    },
  },
  {
    key: "failover",
    title: "6. Patroni failover (primary killed)",
    server: "ha",
    isolated: false,
    notFor: postgresOnly,
    async inject(context) {
      const at = Date.now();
      await context.failover?.();
      // Recovery counts from the loss of the primary: the promotion is part of it.
      return { kind: "system", at, end: at };
    },
  },
];
