import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHaCluster, type HaNode } from "./ha-cluster.ts";
import { killAllUnder } from "./ha-cluster-processes.ts";
import { clusterMembers } from "./ha-cluster-probes.ts";

/*
 * `pnpm ha-cluster start|status|stop` from the repository root: a three-node PostgreSQL
 * high-availability cluster (etcd, Patroni, HAProxy) for trying things by hand. `start` leaves the
 * cluster running after it exits and records it in a state file; `stop` kills every process of
 * the recorded cluster and removes its folder. One cluster at a time per machine user.
 */

/** What `start` records for `status` and `stop`. */
interface State {
  readonly dir: string;
  readonly url: string;
  readonly replicaUrl: string;
  readonly nodes: readonly HaNode[];
}

const STATE_FILE = process.env.VERQ_HA_STATE ?? path.join(os.tmpdir(), "verq-ha-cluster.json");

function readState(): State | null {
  try {
    return JSON.parse(fs.readFileSync(STATE_FILE, "utf8")) as State;
  } catch {
    return null;
  }
}

async function start(): Promise<void> {
  const running = readState();
  if (running !== null && fs.existsSync(running.dir)) {
    throw new Error(`a cluster already runs in ${running.dir} (${STATE_FILE}); run \`pnpm ha-cluster stop\` first`);
  }
  const cluster = await startHaCluster({ keepAfterExit: true });
  const state: State = { dir: cluster.dir, url: cluster.url, replicaUrl: cluster.replicaUrl, nodes: cluster.nodes };
  fs.writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
  console.log(`writes (primary): ${cluster.url}`);
  console.log(`reads (replicas): ${cluster.replicaUrl}`);
  for (const node of cluster.nodes) console.log(`${node.name}: ${node.url} (Patroni REST http://127.0.0.1:${node.restPort})`);
  console.log(`folder and logs:  ${cluster.dir}`);
  console.log(`state:            ${STATE_FILE}`);
  console.log(`primary:          ${await cluster.primary()}`);
}

async function status(state: State): Promise<void> {
  console.log(`writes ${state.url}, reads ${state.replicaUrl}, folder ${state.dir}`);
  const members = await clusterMembers(state.nodes.map((n) => n.restPort));
  for (const m of members) {
    const lag = m.lag === undefined ? "" : ` lag=${m.lag}`;
    console.log(
      `${m.name.padEnd(6)} ${m.role.padEnd(13)} ${m.state.padEnd(10)} ${m.host ?? "?"}:${m.port ?? "?"} tl=${m.timeline ?? "?"}${lag}`,
    );
  }
}

async function stop(state: State): Promise<void> {
  await killAllUnder(state.dir);
  fs.rmSync(state.dir, { recursive: true, force: true });
  fs.rmSync(STATE_FILE, { force: true });
  console.log(`stopped the cluster in ${state.dir}`);
}

async function main(command: string | undefined): Promise<number> {
  if (command === "start") {
    await start();
    return 0;
  }
  if (command !== "status" && command !== "stop") {
    console.error("usage: pnpm ha-cluster start|status|stop");
    return 2;
  }
  const state = readState();
  if (state === null) {
    console.error(`no cluster recorded in ${STATE_FILE}`);
    return 1;
  }
  await (command === "status" ? status(state) : stop(state));
  return 0;
}

try {
  process.exitCode = await main(process.argv[2]);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
