import { JobQueue, openStore } from "@verq/store";
import { runVerq, startReceiver, tempDir, type RunningReceiver } from "@verq/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

/**
 * SPEC J8 with real processes: the receiver in its own process; worker A sends a real HTTP
 * request and dies at the `job.afterSend` failpoint with exit code 73; worker B, one ms before
 * the lease boundary, claims nothing, and at the boundary claims with token 2 and sends again.
 * `VERQ_NOW_MS` fixes each process's clock so the boundary is exact.
 */
const T0 = 1_790_000_000_000;
let dir: ReturnType<typeof tempDir>;
let receiver: RunningReceiver;
let queueDb: string;

beforeAll(async () => {
  dir = tempDir("verq-j8-");
  queueDb = `${dir.path}/queue.sqlite`;
  receiver = await startReceiver(`${dir.path}/receiver.sqlite`);
});
afterAll(async () => {
  await receiver.stop();
  dir.remove();
});

it("J8: A exits 73 after the receiver committed; B reclaims at the boundary with token 2; inventory +7 once; A's late finish is refused", async () => {
  const enqueue = await runVerq(
    ["jobs", "enqueue", "--db", queueDb, "--id", "order-7", "--payload", '{"quantity":7}', "--max-attempts", "3"],
    { VERQ_NOW_MS: String(T0) },
  );
  expect(enqueue.status).toBe(0);

  const work = (nowMs: number, owner: string, env: NodeJS.ProcessEnv = {}) =>
    runVerq(["jobs", "work", "--db", queueDb, "--target", receiver.url, "--once", "--owner", owner, "--lease", "30s", "--json"], {
      VERQ_NOW_MS: String(nowMs),
      ...env,
    });

  const a = await work(T0, "worker-A", { VERQ_FAILPOINTS: "job.afterSend=exit(73)" });
  expect(a.status).toBe(73);
  expect(a.stdout).toBe("");

  const early = await work(T0 + 30_000 - 1, "worker-B");
  expect(early.status).toBe(0);
  expect(JSON.parse(early.stdout)).toEqual({ status: "idle" });

  const b = await work(T0 + 30_000, "worker-B");
  expect(b.status).toBe(0);
  expect(JSON.parse(b.stdout)).toMatchObject({ status: "finished", id: "order-7", token: 2, outcome: "ok", accepted: true });

  const counts = (await (await fetch(`${receiver.url}inventory`)).json()) as Record<string, number>;
  expect(counts).toEqual({ inventory: 7, requests: 2, effects: 1 });

  const store = await openStore({ path: queueDb });
  try {
    const job = await new JobQueue(store).get("order-7");
    expect(job).toMatchObject({ state: "done", token: 2, owner: null });
  } finally {
    await store.close();
  }

  const late = await runVerq(["jobs", "finish", "order-7", "--db", queueDb, "--token", "1", "--outcome", "ok", "--json"]);
  expect(late.status).toBe(3);
  expect(JSON.parse(late.stdout)).toMatchObject({ accepted: false, token: 1 });
});
