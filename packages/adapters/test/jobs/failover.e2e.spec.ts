import { haClusterAvailable, queryOnce, runVerq, startHaCluster, type HaCluster } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failoverPassed, runJobsFailover, type JobsFailoverReport } from "../../../../stress/jobs-failover.ts";

/** A database of its own on the cluster, so that each scenario counts only its own jobs. */
async function databaseOn(cluster: HaCluster, name: string): Promise<string> {
  await queryOnce(cluster.url, `create database ${name}`);
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `url` with the database of `db`. */
function onDatabase(url: string, db: string): string {
  const target = new URL(url);
  target.pathname = new URL(db).pathname;
  return target.toString();
}

/** The rules every scenario keeps, each its own assertion so that a failure names the rule. */
function expectNothingLostNothingTwice(report: JobsFailoverReport): void {
  expect(report.to).not.toBe(report.from);
  expect(report.produced, "enqueues acknowledged during the run").toBeGreaterThan(0);
  expect(report.acknowledgedMissing, "acknowledged enqueues missing").toBe(0);
  expect(report.done, "jobs done").toBe(report.jobs);
  expect(report.receiverEffects, "effects the receiver counted").toBe(report.jobs);
  expect(report.duplicateClaims, "(job, token) handed out twice or tokens gone back").toBe(0);
  expect(report.acceptedStaleFinishes, "outcomes accepted from a holder that had lost its job").toBe(0);
  expect(report.storeCheck).toMatchObject({ exitCode: 0, ok: true, findings: [] });
  expect(report.writableToWakeupMs, "a wake-up heard from the new primary").not.toBeNull();
  expect(report.workerErrors, "errors the workers reported").toBe(0);
  expect(report.killToFirstDoneMs, "a job done on the new primary").not.toBeNull();
  expect(report.killToFirstDoneMs).toBeGreaterThan(0);
  expect(failoverPassed(report)).toBe(true);
}

describe.skipIf(!haClusterAvailable())("jobs on a three-node Patroni cluster, through HAProxy, while its primary fails", () => {
  let cluster: HaCluster;
  beforeAll(async () => {
    cluster = await startHaCluster();
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("the primary's Patroni and server SIGKILLed under load: a replica takes over, nothing acknowledged is lost, nothing is done twice, and verq check is clean", async () => {
    const db = await databaseOn(cluster, "failover_kill");
    const report = await runJobsFailover({
      db,
      jobs: 1_500,
      workers: 3,
      event: "kill",
      fail: async () => {
        const { killed } = await cluster.killPrimary();
        const lostAt = Date.now();
        return { from: killed, to: await cluster.waitForPrimary(killed), lostAt };
      },
      log: (line) => console.log(`[failover:kill] ${line}`),
    });
    console.log(`[failover:kill] ${JSON.stringify(report)}`);
    expectNothingLostNothingTwice(report);
    // The lost node comes back as a replica, for the next scenario's switchover.
    await cluster.restartNode(report.from);
  }, 300_000);

  it("a patronictl switchover under load: the same rules hold", async () => {
    const db = await databaseOn(cluster, "failover_switchover");
    const report = await runJobsFailover({
      db,
      jobs: 1_500,
      workers: 3,
      event: "switchover",
      fail: () => cluster.switchover(),
      log: (line) => console.log(`[failover:switchover] ${line}`),
    });
    console.log(`[failover:switchover] ${JSON.stringify(report)}`);
    expectNothingLostNothingTwice(report);
  }, 300_000);

  it("the read-only commands run on a replica: stats, dead, events and check see what the primary wrote, once the replica has replayed it; a write there is refused with nothing written", async () => {
    const primary = await databaseOn(cluster, "replica_reads");
    const replica = onDatabase(cluster.replicaUrl, primary);
    for (const id of ["r1", "r2", "r3"]) {
      const enqueued = await runVerq(["jobs", "enqueue", "--db", primary, "--id", id, "--payload", "{}"]);
      expect(enqueued.status, enqueued.stderr).toBe(0);
    }
    // Replication is synchronous up to the standby's disk; what it shows follows its replay.
    let stats = await runVerq(["jobs", "stats", "--db", replica, "--json"]);
    for (let i = 0; i < 50 && !stats.stdout.includes('"pending":3'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stats = await runVerq(["jobs", "stats", "--db", replica, "--json"]);
    }
    expect(stats.status, stats.stderr).toBe(0);
    expect(stats.stdout).toContain('"pending":3');
    const dead = await runVerq(["jobs", "dead", "--db", replica, "--json"]);
    expect(dead.status, dead.stderr).toBe(0);
    const events = await runVerq(["events", "--db", replica]);
    expect(events.status, events.stderr).toBe(0);
    expect(
      events.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { streamId: string }).streamId),
    ).toEqual(["r1", "r2", "r3"]);
    const check = await runVerq(["check", "--db", replica]);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain("ok: 3 streams");
    // A write on the replica waits for a primary behind that URL (a failover would bring one), then gives up.
    const write = await runVerq(["jobs", "enqueue", "--db", replica, "--id", "r4", "--payload", "{}"], {
      VERQ_RECONNECT_MS: "1000",
    });
    expect(write.status).toBe(1);
    expect(write.stderr).toMatch(/VERQ_STORE_UNREACHABLE: the server at .* stayed read-only/);
    expect((await runVerq(["jobs", "stats", "--db", primary, "--json"])).stdout).toContain('"pending":3');
  }, 120_000);
});
