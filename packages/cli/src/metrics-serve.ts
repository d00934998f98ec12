import { Registry } from "prom-client";
import { openQueue } from "@verq/adapters/files";
import { createMetricsServer, registerVerqMetrics } from "@verq/adapters/metrics";
import { openLogger, parseLogLevel } from "./cli-logger.ts";
import { clockFromEnv } from "./clock-from-env.ts";
import {
  parseListenHost,
  parseRequestTimeout,
  parseWholeNumber,
  listenOn,
  runCommand,
  untilStopSignal,
  withStore,
  READ_ONLY,
} from "./common.ts";
import type { DbOptions, LogLevelOptions, RequestTimeoutOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/** The options of `verq metrics`. */
export interface MetricsServeOptions extends DbOptions, LogLevelOptions, RequestTimeoutOptions {
  readonly port: string;
  readonly host: string;
  readonly files?: string;
}

/** `verq metrics`: serves `GET /metrics` until SIGINT or SIGTERM; loaded by ./metrics-commands.ts when it runs. */
export const serve = (context: CliContext, o: MetricsServeOptions): Promise<void> =>
  runCommand(context, o, () => {
    // Checked before the database is opened: a bad port, files root or VERQ_NOW_MS creates nothing.
    const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
    const host = parseListenHost(o.host);
    if (o.files !== undefined) openQueue(o.files);
    const clock = clockFromEnv();
    const logLevel = parseLogLevel(o.logLevel);
    const requestTimeout = parseRequestTimeout(o.requestTimeout);
    // Read only: a SQLite file that does not exist is exit 4, and none is created.
    return withStore(
      o.db,
      async (store) => {
        const registry = new Registry();
        registerVerqMetrics(registry, { store, clock, ...(o.files === undefined ? {} : { files: o.files }) });
        const logger = await openLogger(context, logLevel, "verq-metrics");
        const app = createMetricsServer({ registry, logger, requestTimeout });
        const address = await listenOn(app, port, host);
        const url = `${address}/metrics`;
        emit(context.io, o.json === true, { status: "listening", url }, () => `metrics listening on ${url}`);
        await untilStopSignal();
        await app.close();
      },
      READ_ONLY,
    );
  });
