// Plain Node, plain ESM: every entry point of the installed packages loads, and each has the
// exports a service reaches for. Prints, for each entry point, its export names.
const ENTRY_POINTS = {
  "@verq/core": ["isVerqError"],
  "@verq/store": ["openStore", "JobQueue"],
  "@verq/adapters": ["receiverPlugin", "relayPlugin", "FileConsumer", "registerVerqMetrics", "dashboardPlugin"],
  "@verq/adapters/http": ["createHttpSender", "receiverPlugin", "createReceiverServer", "RequestLogController"],
  "@verq/adapters/relay": ["relayPlugin", "createRelayServer", "RelayService", "createHttpCoreClient"],
  "@verq/adapters/files": ["FileConsumer", "initQueue", "openQueue", "measureLag", "replayFile", "DEFAULT_MAX_BYTES"],
  "@verq/adapters/metrics": [
    "registerVerqMetrics",
    "metricsPlugin",
    "createMetricsServer",
    "VERQ_METRIC_NAMES",
    "jobWorkerMetrics",
  ],
  "@verq/adapters/dashboard": ["dashboardPlugin", "createDashboardServer"],
  "@verq/adapters/logging": ["createLogger", "LOG_LEVELS", "REDACTED_FIELDS"],
  "@verq/adapters/operators": ["bulkRedrive", "parseRate", "Pacer"],
  "@verq/adapters/failpoints": ["failpoint", "parseFailpoints"],
  "@verq/adapters/constants": ["LOG_LEVELS", "DEFAULT_MAX_BYTES"],
  "@verq/cli": ["runCli", "EXIT"],
};

const found = {};
for (const [name, expected] of Object.entries(ENTRY_POINTS)) {
  const module = await import(name);
  const missing = expected.filter((key) => !(key in module));
  if (missing.length > 0) throw new Error(`${name} lacks ${missing.join(", ")}`);
  found[name] = Object.keys(module).sort();
}
console.log(JSON.stringify(found));
