import { openLogger, parseLogLevel } from "./cli-logger.ts";
import {
  parseListenHost,
  parseRequestTimeout,
  parseWholeNumber,
  listenOn,
  runCommand,
  untilStopSignal,
  withStore,
} from "./common.ts";
import { createInventoryReceiver } from "./inventory-receiver.ts";
import type { LogLevelOptions, RequestTimeoutOptions } from "./options.ts";
import type { CliContext } from "./output.ts";

/** The options of `verq receiver serve`. */
export interface ReceiverServeOptions extends LogLevelOptions, RequestTimeoutOptions {
  readonly db: string;
  readonly port: string;
  readonly host: string;
}

/** `verq receiver serve`: the idempotent receiver as a process; loaded by ./receiver-commands.ts when it runs. */
export const serve = (context: CliContext, o: ReceiverServeOptions): Promise<void> =>
  runCommand(context, {}, () => {
    // Checked before the database is opened: a bad port creates nothing.
    const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
    const host = parseListenHost(o.host);
    const logLevel = parseLogLevel(o.logLevel);
    const requestTimeout = parseRequestTimeout(o.requestTimeout);
    return withStore(o.db, async (store) => {
      const logger = await openLogger(context, logLevel, "verq-receiver");
      const app = await createInventoryReceiver({ store, logger, requestTimeout });
      const address = await listenOn(app, port, host);
      context.io.out(`receiver listening on ${address}`);
      await untilStopSignal();
      await app.close();
    });
  });
