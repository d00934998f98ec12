// Type-checked with moduleResolution nodenext against the installed packages' declarations,
// beside uses-public-types.ts: each entry point of @verq/adapters, and @verq/cli, by its types.
// Never run.
import { createHttpSender, receiverPlugin, type ReceiverEffect, type ReceiverPluginOptions } from "@verq/adapters/http";
import {
  RelayService,
  createHttpCoreClient,
  type BulkPacing,
  type CoreClient,
  type RelayServiceOptions,
} from "@verq/adapters/relay";
import { DEFAULT_MAX_BYTES, FileConsumer, initQueue, type FileConsumerOptions, type QueueDirs } from "@verq/adapters/files";
import { createMetricsServer, registerVerqMetrics, type VerqMetricsOptions } from "@verq/adapters/metrics";
import { createDashboardServer, type DashboardServerOptions } from "@verq/adapters/dashboard";
import { LOG_LEVELS, createLogger, type LogLevel, type VerqLogger } from "@verq/adapters/logging";
import { parseRate, type BulkRedriveReport, type Rate } from "@verq/adapters/operators";
import { failpoint, type FailpointAction } from "@verq/adapters/failpoints";
import { DEFAULT_MAX_BYTES as MAX_BYTES, LOG_LEVELS as LEVELS } from "@verq/adapters/constants";
import { EXIT, runCli, type CliIo, type ExitCode } from "@verq/cli";
import type { VerqStore } from "@verq/store";
import Fastify from "fastify";
import { Registry } from "prom-client";

export async function mountEdges(store: VerqStore, root: string): Promise<void> {
  const app = Fastify();
  const effect: ReceiverEffect = async () => ({ ok: true });
  const receiver: ReceiverPluginOptions = { store, effect };
  await app.register(receiverPlugin, { prefix: "/deliveries", ...receiver });
  const send = createHttpSender({ url: "http://127.0.0.1:8080/deliveries/" });
  void send;
  const core: CoreClient = createHttpCoreClient({ url: "http://127.0.0.1:9090" });
  const pacing: BulkPacing = { onProgress: (done: number, total: number) => void [done, total] };
  const relayOptions: RelayServiceOptions | undefined = undefined;
  void [core, pacing, relayOptions, RelayService];
  const dirs: QueueDirs = initQueue(root);
  const consumer: FileConsumerOptions | undefined = undefined;
  void [dirs, consumer, FileConsumer, DEFAULT_MAX_BYTES === MAX_BYTES];
  const registry = new Registry();
  const metrics: VerqMetricsOptions = { store };
  registerVerqMetrics(registry, metrics);
  await createMetricsServer({ registry }).close();
  const dashboard: DashboardServerOptions = { store };
  await createDashboardServer(dashboard).close();
  const level: LogLevel = LOG_LEVELS[3];
  const logger: VerqLogger = createLogger({ level });
  void [logger, LEVELS];
  const rate: Rate = parseRate("10/s");
  const report: BulkRedriveReport | undefined = undefined;
  const action: FailpointAction = { kind: "kill" };
  failpoint("service.beforeCommit");
  void [rate, report, action];
}

export async function verq(args: readonly string[]): Promise<{ code: ExitCode | number; out: string }> {
  let out = "";
  const io: CliIo = { out: (text) => (out += text), err: () => {} };
  const code = await runCli(args, io);
  return { code: code === EXIT.ok ? EXIT.ok : code, out };
}
