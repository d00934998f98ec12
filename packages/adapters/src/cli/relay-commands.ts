import { VerqError, isValidGuid, type LedgerEntry } from "@verq/core";
import { GuidLedger, type StoredEvent, type VerqStore } from "@verq/store";
import type { Command } from "commander";
import { createHttpCoreClient } from "../relay/http-core-client.ts";
import { createRelayServer } from "../relay/relay-server.ts";
import { RelayService } from "../relay/relay-service.ts";
import type { CoreClient } from "../relay/core-client.ts";
import { clockFromEnv } from "./clock-from-env.ts";
import {
  dbOption,
  describeEvent,
  iso,
  jsonOption,
  parseDuration,
  parseWholeNumber,
  runCommand,
  untilStopSignal,
  withStore,
  type DbOptions,
} from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import { emit, reportError, type CliContext } from "./output.ts";

interface CoreOptions extends DbOptions {
  readonly core: string;
  readonly coreTimeout: string;
}

// Stands in for the core where a command never calls it (purge, show, stats).
const NO_CORE: CoreClient = {
  transfer: () => Promise.reject(new Error("this command does not call the core")),
  inquire: () => Promise.reject(new Error("this command does not call the core")),
};

/** Opens the store and a relay on it (with the clock of `VERQ_NOW_MS`) calling `core`, runs `work`, closes the store. */
const withRelay = <T>(db: string, core: CoreClient, work: (relay: RelayService, store: VerqStore) => Promise<T>): Promise<T> =>
  withStore(db, (store) => work(new RelayService({ ledger: new GuidLedger(store, { clock: clockFromEnv() }), core }), store));

/** The core client of `--core` and `--core-timeout`; throws `VERQ_INVALID_ARGUMENT` for a bad URL or duration. */
const coreFrom = (o: CoreOptions): CoreClient =>
  createHttpCoreClient({ url: o.core, timeoutMs: parseDuration(o.coreTimeout, "--core-timeout", { min: 1, max: 86_400_000 }) });

const list = (guids: readonly string[]) =>
  guids.length === 0 ? "" : ` (${guids.slice(0, 20).join(", ")}${guids.length > 20 ? ", …" : ""})`;

function describeEntry(entry: LedgerEntry): string {
  return `${entry.guid} ${entry.state} code=${entry.code} attempts=${entry.attempts} updated=${iso(entry.updatedAt)}`;
}

const LEDGER_DB = "SQLite file or postgres:// URL of the ledger";

/** Event fields a relay timeline never prints: the GUID (shown above it) and message contents. */
const HIDDEN_FIELDS = ["request", "response", "fingerprint", "guid"] as const;

/** The options of the commands that call the core over a ledger: resolve and reprocess. */
function withCoreOptions(command: Command, what: { timeoutOf: string; limitOf: string }): Command {
  return command
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--core <url>", "the core's base URL")
    .option("--core-timeout <duration>", `timeout of ${what.timeoutOf}`, "10s")
    .option("--limit <n>", `look at most at this many ${what.limitOf}, oldest first`, "1000")
    .addOption(jsonOption());
}

/**
 * `verq relay …`: serve, resolve, reprocess, purge, show, stats (SPEC G1–G8). Exit codes:
 * 0 done; 1 work left undone (resolve: an inquiry failed; reprocess: an entry sent again did
 * not end DONE); 2 usage; 3 refused by a rule (purge whose retention is not longer than the
 * resend window); 4 unknown GUID.
 */
export function registerRelayCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const relay = program
    .command("relay")
    .description("the GUID relay: an idempotency ledger in front of a core that is not idempotent");

  relay
    .command("serve")
    .description("serve POST /transfer until SIGINT or SIGTERM; sweeps entries left in flight by a relay that died")
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--core <url>", "the core's base URL (POST /transfer, GET /transfer/{guid})")
    .requiredOption("--port <n>", "TCP port (0 picks a free one)")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--core-timeout <duration>", "how long to wait for the core's answer before UNKNOWN (E901)", "10s")
    .option(
      "--recover-after <duration>",
      "sweep RECEIVED → FAILED and SENT → UNKNOWN once this old (longer than --core-timeout)",
      "1m",
    )
    .option("--max-attempts <n>", "how many times a GUID may be sent in all, channel resends of a FAILED entry included", "5")
    .addOption(jsonOption("print JSON lines"))
    .action((o: CoreOptions & { port: string; host: string; recoverAfter: string; maxAttempts: string }) =>
      runCommand(context, o, () => {
        const json = o.json === true;
        const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
        const timeoutMs = parseDuration(o.coreTimeout, "--core-timeout", { min: 1, max: 86_400_000 });
        const recoverAfterMs = parseDuration(o.recoverAfter, "--recover-after");
        if (recoverAfterMs <= timeoutMs) {
          throw new VerqError(
            "VERQ_INVALID_ARGUMENT",
            "--recover-after must be longer than --core-timeout, or a live request could be swept",
          );
        }
        const maxAttempts = parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1 });
        const core = createHttpCoreClient({ url: o.core, timeoutMs });
        return withStore(o.db, async (store) => {
          const service = new RelayService({ ledger: new GuidLedger(store, { clock: clockFromEnv() }), core, maxAttempts });
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
          const app = createRelayServer({ relay: service });
          const address = await app.listen({ port, host: o.host });
          emit(io, json, { listening: address }, () => `relay listening on ${address}`);
          const timer = setInterval(
            () => {
              sweep().catch((error: unknown) => reportError(io, json, error));
            },
            Math.max(1_000, Math.floor(recoverAfterMs / 2)),
          );
          timer.unref();
          await untilStopSignal();
          clearInterval(timer);
          await app.close();
        });
      }),
    );

  withCoreOptions(
    relay
      .command("resolve")
      .description("settle UNKNOWN entries older than --min-age by the core's inquiry: found → DONE, not found → FAILED")
      .requiredOption("--min-age <duration>", "the core's longest processing time; younger entries are not asked about"),
    { timeoutOf: "each inquiry", limitOf: "UNKNOWN entries" },
  ).action((o: CoreOptions & { minAge: string; limit: string }) =>
    runCommand(context, o, () => {
      const minAgeMs = parseDuration(o.minAge, "--min-age");
      const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
      return withRelay(o.db, coreFrom(o), async (service) => {
        const report = await service.resolve({ minAgeMs, limit });
        emit(io, o.json === true, report, () =>
          [
            `resolved: DONE ${report.done.length}${list(report.done)}, FAILED ${report.failed.length}${list(report.failed)}`,
            `younger than the min age (left UNKNOWN): ${report.young.length}${list(report.young)}`,
            `inquiry errors (left UNKNOWN): ${report.errors.length}${report.errors.length === 0 ? "" : ` (${report.errors.map((e) => `${e.guid}: ${e.reason}`).join(", ")})`}`,
          ].join("\n"),
        );
        return report.errors.length > 0 ? EXIT.failed : EXIT.ok;
      });
    }),
  );

  withCoreOptions(
    relay
      .command("reprocess")
      .description("send FAILED entries again with the same GUID and the stored request, up to --max-attempts; never UNKNOWN")
      .requiredOption("--max-attempts <n>", "attempt cap per GUID, first send included"),
    { timeoutOf: "each call", limitOf: "entries" },
  ).action((o: CoreOptions & { maxAttempts: string; limit: string }) =>
    runCommand(context, o, () => {
      const maxAttempts = parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1 });
      const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
      return withRelay(o.db, coreFrom(o), async (service) => {
        const report = await service.reprocess({ maxAttempts, limit });
        emit(io, o.json === true, report, () =>
          [
            ...report.items
              .filter((i) => i.outcome === "sent")
              .map(
                (i) => `${i.guid} sent again (attempt ${i.attempts}) -> ${i.state}${i.outcome === "sent" ? ` ${i.code}` : ""}`,
              ),
            `reprocessed: DONE ${report.done}, not DONE ${report.notDone}; at the attempt cap ${report.atCap}; UNKNOWN skipped (resolve them) ${report.skippedUnknown}`,
          ].join("\n"),
        );
        return report.notDone > 0 ? EXIT.failed : EXIT.ok;
      });
    }),
  );

  relay
    .command("purge")
    .description(
      "delete DONE entries older than --retention, with their events (audited); never UNKNOWN, FAILED, RECEIVED or SENT",
    )
    .addOption(dbOption(LEDGER_DB))
    .requiredOption("--retention <duration>", "keep DONE entries this long; must be longer than --resend-window")
    .requiredOption("--resend-window <duration>", "the channel's longest resend window")
    .addOption(jsonOption())
    .action((o: DbOptions & { retention: string; resendWindow: string }) =>
      runCommand(context, o, () => {
        const retentionMs = parseDuration(o.retention, "--retention");
        const resendWindowMs = parseDuration(o.resendWindow, "--resend-window");
        return withRelay(o.db, NO_CORE, async (service) => {
          const result = await service.purge({ retentionMs, resendWindowMs });
          const kept = Object.entries(result.kept).filter(([, n]) => n > 0);
          emit(
            io,
            o.json === true,
            result,
            () =>
              `purged ${result.purged} DONE entries (${result.events} events); kept although older: ${kept.length === 0 ? "none" : kept.map(([s, n]) => `${s}=${n}`).join(" ")}`,
          );
        });
      }),
    );

  relay
    .command("show")
    .description("a ledger entry and its timeline")
    .argument("<guid>", "the GUID")
    .addOption(dbOption(LEDGER_DB))
    .addOption(jsonOption("print JSON: guid, state, code, attempts, updatedAt, …, events"))
    .action((guid: string, o: DbOptions) =>
      runCommand(context, o, () => {
        if (!isValidGuid(guid))
          throw new VerqError(
            "VERQ_INVALID_ARGUMENT",
            "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit",
          );
        return withRelay(o.db, NO_CORE, async (service) => {
          const { entry, events } = await service.show(guid);
          emit(io, o.json === true, { ...entry, events }, () =>
            [describeEntry(entry), ...events.map((e: StoredEvent) => describeEvent(e, HIDDEN_FIELDS))].join("\n"),
          );
        });
      }),
    );

  relay
    .command("stats")
    .description("entries by state, the oldest UNKNOWN and FAILED, attempts, the last purge")
    .addOption(dbOption(LEDGER_DB))
    .addOption(jsonOption())
    .action((o: DbOptions) =>
      runCommand(context, o, () =>
        withRelay(o.db, NO_CORE, async (service) => {
          const s = await service.stats();
          emit(io, o.json === true, s, () =>
            [
              `${Object.entries(s.byState)
                .map(([state, n]) => `${state}=${n}`)
                .join(" ")} total=${s.total}`,
              `oldest UNKNOWN: ${s.oldestUnknown === null ? "none" : `${s.oldestUnknown.guid} since ${iso(s.oldestUnknown.since)}`}`,
              `oldest FAILED: ${s.oldestFailed === null ? "none" : `${s.oldestFailed.guid} since ${iso(s.oldestFailed.since)} attempts=${s.oldestFailed.attempts}`}`,
              `attempts: total=${s.attempts.total} max=${s.attempts.max} sent more than once=${s.attempts.retried}`,
              `last purge: ${s.lastPurge === null ? "none" : `${s.lastPurge.count} entries at ${iso(s.lastPurge.at)}`}`,
            ].join("\n"),
          );
        }),
      ),
    );
}
