import { isIP } from "node:net";
import { VerqError } from "@verq/core";
import { createDashboardServer, loadCredentials } from "@verq/adapters/dashboard";
import { createHttpCoreClient } from "@verq/adapters/relay";
import { openQueue } from "@verq/adapters/files";
import { openLogger, parseLogLevel } from "./cli-logger.ts";
import {
  READ_ONLY,
  listenOn,
  parseDuration,
  parseRequestTimeout,
  parseWholeNumber,
  runCommand,
  untilStopSignal,
  withStore,
} from "./common.ts";
import type { LogLevelOptions, RequestTimeoutOptions } from "./options.ts";
import type { CliContext } from "./output.ts";
import { loadStreams, type StreamsOptions } from "./streams-module.ts";

/** The options of `verq dashboard`. */
export interface DashboardOptions extends LogLevelOptions, RequestTimeoutOptions, StreamsOptions {
  readonly db: string;
  readonly port: string;
  readonly host: string;
  readonly files?: string;
  readonly authFile?: string;
  readonly secureCookie?: boolean;
  readonly core?: string;
  readonly coreTimeout: string;
  readonly minAge: string;
  readonly maxAttempts: string;
}

/** `--host`: an IPv4 or IPv6 address, or `localhost`; anything else is `VERQ_INVALID_ARGUMENT` (exit 2). */
function parseHost(text: string): string {
  if (text === "localhost" || isIP(text) !== 0) return text;
  throw new VerqError(
    "VERQ_INVALID_ARGUMENT",
    `--host must be an IP address such as 127.0.0.1; got ${JSON.stringify(text.slice(0, 80))}`,
  );
}

/** `verq dashboard`: serves the dashboard until SIGINT or SIGTERM; loaded by ./dashboard-commands.ts when it runs. */
export const dashboard = (context: CliContext, o: DashboardOptions): Promise<void> =>
  runCommand(context, {}, async () => {
    // Checked before the database is opened: a bad option (or --streams module) opens and creates nothing.
    const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
    const host = parseHost(o.host);
    const logLevel = parseLogLevel(o.logLevel);
    const requestTimeout = parseRequestTimeout(o.requestTimeout);
    const filesRoot = o.files === undefined ? undefined : openQueue(o.files).root;
    const streams = await loadStreams(o.streams);
    // Never from the command line: a secret there is in every user's process list.
    const credentials = loadCredentials({ file: o.authFile, env: process.env });
    if (o.core !== undefined && credentials === null) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", "--core is for operators who log in: give credentials too (--auth-file)");
    }
    // Checked whether or not --core is given: a bad value is refused, never ignored.
    const timeoutMs = parseDuration(o.coreTimeout, "--core-timeout", { min: 1, max: 86_400_000 });
    const minAgeMs = parseDuration(o.minAge, "--min-age");
    const maxAttempts = parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1 });
    const core =
      o.core === undefined ? undefined : { client: createHttpCoreClient({ url: o.core, timeoutMs }), minAgeMs, maxAttempts };
    return withStore(
      o.db,
      async (store) => {
        const logger = await openLogger(context, logLevel, "verq-dashboard");
        const app = createDashboardServer({
          store,
          logger,
          requestTimeout,
          streams,
          ...(filesRoot === undefined ? {} : { filesRoot }),
          ...(credentials === null ? {} : { auth: { credentials, secureCookie: o.secureCookie === true } }),
          ...(core === undefined ? {} : { core }),
        });
        const address = await listenOn(app, port, host);
        const mode =
          credentials === null
            ? "read-only"
            : `operators log in at ${address}/login to act${core === undefined ? "" : "; ledger acts call the core"}`;
        context.io.out(`dashboard on ${address}/ (${mode}; SIGINT or SIGTERM stops it)`);
        await untilStopSignal();
        await app.close();
      },
      READ_ONLY,
    );
  });
