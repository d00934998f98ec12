import { VerqError, isValidGuid, type LedgerEntry } from "@verq/core";
import { GuidLedger, checkPurgeRetention, type StoredEvent, type VerqStore } from "@verq/store";
import { type CoreClient, RelayService } from "@verq/adapters/relay";
import { clockFromEnv } from "./clock-from-env.ts";
import { READ_ONLY, describeEvent, iso, parseDuration, runCommand, withStore, type StoreUse } from "./common.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The actions of `verq relay …` that never call the core (purge, show, stats), and what the
 * others share; loaded by ./relay-commands.ts when one runs: the store and the core, no HTTP
 * server or client.
 */

// Stands in for the core where a command never calls it (purge, show, stats).
const NO_CORE: CoreClient = {
  transfer: () => Promise.reject(new Error("this command does not call the core")),
  inquire: () => Promise.reject(new Error("this command does not call the core")),
};

/** Opens the store and a relay on it (with the clock of `VERQ_NOW_MS`) calling `core`, runs `work`, closes the store. */
export const withRelay = <T>(
  db: string,
  core: CoreClient,
  work: (relay: RelayService, store: VerqStore) => Promise<T>,
  use: StoreUse = {},
): Promise<T> =>
  withStore(
    db,
    (store) => work(new RelayService({ ledger: new GuidLedger(store, { clock: clockFromEnv() }), core }), store),
    use,
  );

/** Up to 20 GUIDs in parentheses after a count, or nothing for none. */
export const list = (guids: readonly string[]): string =>
  guids.length === 0 ? "" : ` (${guids.slice(0, 20).join(", ")}${guids.length > 20 ? ", …" : ""})`;

function describeEntry(entry: LedgerEntry): string {
  return `${entry.guid} ${entry.state} code=${entry.code} attempts=${entry.attempts} updated=${iso(entry.updatedAt)}`;
}

/** Event fields a relay timeline never prints: the GUID (shown above it) and message contents. */
const HIDDEN_FIELDS = ["request", "response", "fingerprint", "guid"] as const;

/** The options of `verq relay purge`. */
export interface PurgeOptions extends DbOptions {
  readonly retention: string;
  readonly resendWindow: string;
}

/** `verq relay purge`: DONE entries older than `--retention` deleted with their events, audited. */
export const purge = (context: CliContext, o: PurgeOptions): Promise<void> =>
  runCommand(context, o, () => {
    const retentionMs = parseDuration(o.retention, "--retention");
    const resendWindowMs = parseDuration(o.resendWindow, "--resend-window");
    // The machine's refusal of a retention that does not cover the window comes before the store
    // is opened, so that it creates no database file.
    checkPurgeRetention(retentionMs, resendWindowMs, clockFromEnv().now());
    return withRelay(o.db, NO_CORE, async (service) => {
      const result = await service.purge({ retentionMs, resendWindowMs });
      const kept = Object.entries(result.kept).filter(([, n]) => n > 0);
      emit(
        context.io,
        o.json === true,
        result,
        () =>
          `purged ${result.purged} DONE entries (${result.events} events); kept although older: ${kept.length === 0 ? "none" : kept.map(([s, n]) => `${s}=${n}`).join(" ")}`,
      );
    });
  });

/** `verq relay show`: a ledger entry and its timeline, without message contents. */
export const show = (context: CliContext, guid: string, o: DbOptions): Promise<void> =>
  runCommand(context, o, () => {
    if (!isValidGuid(guid))
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit",
      );
    return withRelay(
      o.db,
      NO_CORE,
      async (service) => {
        const { entry, events } = await service.show(guid);
        emit(context.io, o.json === true, { ...entry, events }, () =>
          [describeEntry(entry), ...events.map((e: StoredEvent) => describeEvent(e, HIDDEN_FIELDS))].join("\n"),
        );
      },
      READ_ONLY,
    );
  });

/** `verq relay stats`: entries by state, the oldest UNKNOWN and FAILED, attempts, the last purge. */
export const stats = (context: CliContext, o: DbOptions): Promise<void> =>
  runCommand(context, o, () =>
    withRelay(
      o.db,
      NO_CORE,
      async (service) => {
        const s = await service.stats();
        emit(context.io, o.json === true, s, () =>
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
      },
      READ_ONLY,
    ),
  );
