import path from "node:path";

/*
 * The configuration files of the high-availability cluster, as pure functions of its folder and
 * ports. Patroni reads YAML, of which JSON is a subset, so its files are written with
 * JSON.stringify and need no YAML library.
 */

/** The Patroni scope (cluster name) every node of a cluster shares; the cluster's etcd is its own. */
export const HA_SCOPE = "verq-ha";

/** The ports of one node. */
export interface HaNodePorts {
  readonly name: string;
  readonly pgPort: number;
  readonly restPort: number;
}

/** Where a cluster's files are and which ports its programs listen on. */
export interface HaLayout {
  readonly dir: string;
  readonly etcdClientPort: number;
  readonly etcdPeerPort: number;
  readonly writePort: number;
  readonly readPort: number;
  readonly nodes: readonly HaNodePorts[];
}

/*
 * Failover timing. A lost primary's leader key lives `ttl` seconds in etcd, then the replicas
 * notice within `loop_wait` and the synchronous one promotes itself; HAProxy's checks (every
 * second) follow. So a failover takes about 10–20 s. Patroni wants `loop_wait + 2 * retry_timeout`
 * below `ttl`, or a node could lose the key on one slow etcd answer.
 */
const TTL_S = 10;
const LOOP_WAIT_S = 2;
const RETRY_TIMEOUT_S = 3;

/** The etcd command line: one member, v3 API, its data in the cluster's folder. */
export function etcdArgs(layout: HaLayout): string[] {
  const client = `http://127.0.0.1:${layout.etcdClientPort}`;
  const peer = `http://127.0.0.1:${layout.etcdPeerPort}`;
  return [
    "--name=verq-ha-etcd",
    `--data-dir=${path.join(layout.dir, "etcd")}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=verq-ha-etcd=${peer}`,
    "--initial-cluster-state=new",
    "--initial-cluster-token=verq-ha",
  ];
}

/** A node's folder: its Patroni configuration and its PostgreSQL data folder are in it. */
export const nodeDir = (layout: HaLayout, name: string) => path.join(layout.dir, name);
export const dataDir = (layout: HaLayout, name: string) => path.join(layout.dir, name, "data");
export const patroniConfigPath = (layout: HaLayout, name: string) => path.join(layout.dir, name, "patroni.yml");

/** The Patroni configuration of one node, as the text of its file. */
export function patroniConfig(layout: HaLayout, node: HaNodePorts, pgBinDir: string): string {
  const trust = ["local all all trust", "host all all 127.0.0.1/32 trust", "host replication all 127.0.0.1/32 trust"];
  const config = {
    scope: HA_SCOPE,
    name: node.name,
    log: { level: "INFO" },
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${layout.etcdClientPort}`], protocol: "http" },
    bootstrap: {
      dcs: {
        ttl: TTL_S,
        loop_wait: LOOP_WAIT_S,
        retry_timeout: RETRY_TIMEOUT_S,
        maximum_lag_on_failover: 1_048_576,
        // An acknowledged commit is on the synchronous replica, and only that replica may be
        // promoted: no acknowledged write is lost to a failover.
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            // pg_rewind needs hint bits in the WAL (or checksums) and full page writes.
            wal_log_hints: "on",
            full_page_writes: "on",
            // Nothing here must survive the machine.
            fsync: "off",
            synchronous_commit: "on",
            wal_level: "replica",
            hot_standby: "on",
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: "128MB",
            shared_buffers: "16MB",
          },
        },
      },
      initdb: [{ encoding: "UTF8" }, "no-sync"],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: dataDir(layout, node.name),
      bin_dir: pgBinDir,
      pgpass: path.join(nodeDir(layout, node.name), "pgpass"),
      authentication: {
        superuser: { username: "postgres" },
        replication: { username: "postgres" },
        rewind: { username: "postgres" },
      },
      // A node that cannot be rewound is cloned anew, so that a test's restart always rejoins.
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
      basebackup: [{ checkpoint: "fast" }],
      parameters: { unix_socket_directories: nodeDir(layout, node.name) },
      pg_hba: trust,
    },
    watchdog: { mode: "off" },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * The HAProxy configuration: a write frontend routed to the node whose Patroni answers 200 on
 * `/primary`, a read frontend spread over those answering 200 on `/replica`. A server marked down
 * has its sessions cut (`on-marked-down shutdown-sessions`), so a client of a demoted or lost
 * primary sees its connection end rather than hang or write to a replica.
 */
export function haproxyConfig(layout: HaLayout): string {
  const backend = (name: string, port: number, check: string, balance: string) => [
    `listen ${name}`,
    `  bind 127.0.0.1:${port}`,
    `  balance ${balance}`,
    "  option httpchk",
    `  http-check send meth GET uri ${check}`,
    "  http-check expect status 200",
    "  default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 1 on-marked-down shutdown-sessions",
    ...layout.nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} maxconn 100 check port ${n.restPort}`),
    "",
  ];
  return [
    "global",
    "  maxconn 400",
    "",
    "defaults",
    "  mode tcp",
    "  timeout connect 2s",
    "  timeout client 30m",
    "  timeout server 30m",
    "  timeout check 1s",
    "",
    ...backend("write", layout.writePort, "/primary", "first"),
    ...backend("read", layout.readPort, "/replica", "roundrobin"),
  ].join("\n");
}
