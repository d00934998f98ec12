import { VerqError } from "@verq/core";
import { GuidLedger, errorFields } from "@verq/store";
import { createHttpCoreClient, createRelayServer, RelayService } from "@verq/adapters/relay";
import { openLogger, parseLogLevel } from "./cli-logger.ts";
import { clockFromEnv } from "./clock-from-env.ts";
import {
  parseDuration,
  parseListenHost,
  parseRequestTimeout,
  parseWholeNumber,
  listenOn,
  runCommand,
  untilStopSignal,
  withStore,
} from "./common.ts";
import type { LogLevelOptions, RequestTimeoutOptions } from "./options.ts";
import { emit, reportError, type CliContext } from "./output.ts";
import { list } from "./relay-actions.ts";
import type { CoreOptions } from "./relay-core-actions.ts";

/** The options of `verq relay serve`. */
export interface ServeOptions extends CoreOptions, LogLevelOptions, RequestTimeoutOptions {
  readonly port: string;
  readonly host: string;
  readonly recoverAfter: string;
  readonly maxAttempts: string;
}

/**
 * `verq relay serve`: the relay's HTTP server until SIGINT or SIGTERM, sweeping entries left in
 * flight by a relay that died; loaded by ./relay-commands.ts when it runs.
 */
export const serve = (context: CliContext, o: ServeOptions): Promise<void> =>
  runCommand(context, o, () => {
    const { io } = context;
    const json = o.json === true;
    const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
    const host = parseListenHost(o.host);
    const timeoutMs = parseDuration(o.coreTimeout, "--core-timeout", { min: 1, max: 86_400_000 });
    const recoverAfterMs = parseDuration(o.recoverAfter, "--recover-after");
    if (recoverAfterMs <= timeoutMs) {
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        "--recover-after must be longer than --core-timeout, or a live request could be swept",
      );
    }
    const maxAttempts = parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1 });
    const logLevel = parseLogLevel(o.logLevel);
    const requestTimeout = parseRequestTimeout(o.requestTimeout);
    const core = createHttpCoreClient({ url: o.core, timeoutMs });
    return withStore(o.db, async (store) => {
      const logger = await openLogger(context, logLevel, "verq-relay");
      const ledger = new GuidLedger(store, { clock: clockFromEnv() });
      const service = new RelayService({ ledger, core, maxAttempts, logger });
      const sweep = async () => {
        const swept = await service.recover(recoverAfterMs);
        if (swept.failed.length + swept.unknown.length > 0) {
          emit(
            io,
            json,
            { swept },
            () =>
              `recovered: FAILED ${swept.failed.length}${list(swept.failed)}, UNKNOWN ${swept.unknown.length}${list(swept.unknown)}`,
          );
        }
      };
      await sweep();
      const app = createRelayServer({ relay: service, logger, requestTimeout });
      const address = await listenOn(app, port, host);
      emit(io, json, { listening: address }, () => `relay listening on ${address}`);
      const timer = setInterval(
        () => {
          sweep().catch((error: unknown) => {
            logger.error(errorFields(error), "recovery sweep failed");
            reportError(io, json, error);
          });
        },
        Math.max(1_000, Math.floor(recoverAfterMs / 2)),
      );
      timer.unref();
      await untilStopSignal();
      clearInterval(timer);
      await app.close();
    });
  });
