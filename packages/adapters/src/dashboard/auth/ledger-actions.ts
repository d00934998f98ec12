import {
  decideGuid,
  guidCommands,
  VerqError,
  type Clock,
  type GuidEventType,
  type GuidRefusal,
  type LedgerEntry,
  type VerqErrorCode,
} from "@verq/core";
import type { GuidLedger } from "@verq/store";
import type { FastifyInstance } from "fastify";
import type { CoreClient } from "../../relay/core-client.ts";
import { reprocessOne } from "../../relay/reprocess-failed.ts";
import { resolveOne } from "../../relay/resolve-unknown.ts";
import { html, type Html } from "../html.ts";
import type { DashboardPageContext } from "../page-context.ts";
import { time, type DashboardPaths } from "../page-shell.ts";
import { FORM_TOKEN_FIELD, type DashboardAuth } from "./dashboard-auth.ts";
import { asShown, refusal, runAct, type ActRefusal } from "./run-act.ts";
import type { DashboardSession } from "./sessions.ts";

/** The acts an operator can take on one ledger entry from its page: the relay's resolve and reprocess. */
export const LEDGER_ACTS = ["resolve", "reprocess"] as const;
export type LedgerAct = (typeof LEDGER_ACTS)[number];

/** The events each act may end with: the one an entry's page marks after the act, when it is the last. */
export const LEDGER_ACT_EVENTS: Readonly<Record<LedgerAct, readonly GuidEventType[]>> = {
  resolve: ["guid.done", "guid.failed"],
  reprocess: ["guid.done", "guid.failed", "guid.unknown", "guid.sent"],
};

/**
 * The core the ledger acts call, and the settings of `verq relay resolve` and `verq relay
 * reprocess` they act with: the min age of an UNKNOWN entry before the core is asked about it
 * (1 minute) and the attempt cap of a reprocess (5, as `verq relay serve`'s).
 */
export interface DashboardCoreOptions {
  readonly client: CoreClient;
  readonly minAgeMs?: number;
  readonly maxAttempts?: number;
}

/** The defaults of {@link DashboardCoreOptions}. */
export const DEFAULT_MIN_AGE_MS = 60_000;
export const DEFAULT_MAX_ATTEMPTS = 5;

/** The code of each refusal of the guid machine a ledger act can meet: the rule the entry fails as it is now. */
const REFUSAL_CODES: Readonly<Partial<Record<GuidRefusal, VerqErrorCode>>> = {
  "too-young": "VERQ_ENTRY_TOO_YOUNG",
  "not-unknown": "VERQ_NOT_UNKNOWN",
  "not-failed": "VERQ_NOT_FAILED",
  "attempts-exhausted": "VERQ_ATTEMPTS_EXHAUSTED",
};

/** What the operator is told when the guid machine refuses an act on the entry as it is now. */
function refusalMessage(refusal: GuidRefusal | "not-asked", entry: LedgerEntry, core: Required<DashboardCoreOptions>): string {
  if (entry.state === "UNKNOWN" && (refusal === "not-asked" || refusal === "too-young")) {
    return `the entry changed less than the min age ago; the core may still be processing it: ask after ${time(entry.updatedAt + core.minAgeMs)}`;
  }
  if (refusal === "attempts-exhausted") {
    return `the entry is at its attempt cap (${entry.attempts} of ${core.maxAttempts}); it is not sent again`;
  }
  if (refusal === "not-failed" && entry.state === "UNKNOWN") {
    return "the entry is UNKNOWN: it may have been processed, so it is never sent again; ask the core about it instead. Nothing was done";
  }
  const only =
    refusal === "not-failed" ? "only a FAILED entry is sent again" : "only an UNKNOWN entry is settled by the core's inquiry";
  return `the entry is ${entry.state}; ${only}. Nothing was done`;
}

/**
 * The refusal of an act on `entry` the guid machine refused (`not-asked`: the relay did not ask
 * the core, as the machine would not let an answer settle the entry), with the machine's own
 * code. An entry no longer at the version the operator saw never gets here: the relay and the
 * store throw `VERQ_ENTRY_CHANGED` first. A refusal no ledger act can meet is a bug.
 */
function ledgerRefusal(refusal: GuidRefusal | "not-asked", entry: LedgerEntry, core: Required<DashboardCoreOptions>): ActRefusal {
  const machine = refusal === "not-asked" ? (entry.state === "UNKNOWN" ? "too-young" : "not-unknown") : refusal;
  const code = REFUSAL_CODES[machine];
  if (code === undefined) throw new VerqError("VERQ_UNEXPECTED", `an act on guid ${entry.guid} was refused: ${machine}`);
  return { code, message: refusalMessage(refusal, entry, core) };
}

/**
 * Registers `POST /ledger/:guid/resolve` and `POST /ledger/:guid/reprocess`, each run by
 * {@link runAct} (the login's checks first) through the same operation as `verq relay resolve`
 * and `verq relay reprocess` for one entry (`resolveOne`, `reprocessOne`), with the version of
 * the entry the page was drawn at: an entry that moved on since is `VERQ_ENTRY_CHANGED`.
 * Otherwise the guid machine decides, and a refusal is a 409 page with its own code:
 * `VERQ_ENTRY_TOO_YOUNG` (UNKNOWN, younger than the min age), `VERQ_NOT_UNKNOWN` (a resolve of
 * another state), `VERQ_NOT_FAILED` (a reprocess of another state), `VERQ_ATTEMPTS_EXHAUSTED`
 * (at the cap). An inquiry the core did not answer is a 502 page with `VERQ_RETRYABLE` and the
 * entry left UNKNOWN. Accepted, the browser is sent back to the entry's page, where the event the
 * act ended with is marked. A reprocess whose call to the core failed is recorded as that call is
 * for a channel request, and the page shows it.
 */
export function registerLedgerActs(
  app: FastifyInstance,
  context: DashboardPageContext,
  ledger: GuidLedger,
  options: DashboardCoreOptions,
): void {
  const core = settingsOf(options);
  const relay = { ledger, core: core.client };
  for (const act of LEDGER_ACTS) {
    app.post<{ Params: { guid: string } }>(`/ledger/:guid/${act}`, (request, reply) => {
      const { guid } = request.params;
      const gone = refusal("VERQ_UNKNOWN_GUID", `the ledger has no entry for GUID ${guid}`);
      return runAct(context, request, reply, {
        back: () => context.paths.ledger(guid),
        run: asShown("entry", async (_form, expectedVersion) => {
          if (act === "resolve") {
            const result = await resolveOne(relay, guid, { minAgeMs: core.minAgeMs, expectedVersion });
            if (result.outcome === "gone") return gone;
            if (result.outcome === "inquiry-error") {
              const message = `the core did not answer the inquiry (${result.reason}); the entry is left UNKNOWN: try again later`;
              return refusal("VERQ_RETRYABLE", message);
            }
            if (result.outcome !== "settled") {
              const refused = result.outcome === "refused" ? result.refusal : "not-asked";
              return ledgerRefusal(refused, result.entry, core);
            }
          } else {
            const item = await reprocessOne(relay, guid, { maxAttempts: core.maxAttempts, expectedVersion });
            if (item.outcome === "gone") return gone;
            if (item.outcome === "refused") {
              const entry = await ledger.get(guid);
              return entry === null ? gone : ledgerRefusal(item.refusal, entry, core);
            }
          }
          return { next: `${context.paths.ledger(guid)}?acted=${act}#acted` };
        }),
      });
    });
  }
}

/** The core's settings with their defaults. */
const settingsOf = (core: DashboardCoreOptions): Required<DashboardCoreOptions> => ({
  client: core.client,
  minAgeMs: core.minAgeMs ?? DEFAULT_MIN_AGE_MS,
  maxAttempts: core.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
});

/**
 * The forms of the acts the guid machine would accept on the entry now, for a page drawn for
 * `session`'s operator: "Ask the core" for an UNKNOWN entry at least the min age old, "Send
 * again" for a FAILED one below the cap; each with its own one-time token and the entry's version.
 * An UNKNOWN entry too young to ask about, and a FAILED one at the cap, say so instead.
 */
export function ledgerActForms(
  paths: DashboardPaths,
  auth: DashboardAuth,
  session: DashboardSession,
  entry: LedgerEntry,
  offer: { readonly ledger: GuidLedger; readonly core: DashboardCoreOptions; readonly clock: Clock },
): Html {
  const core = settingsOf(offer.core);
  const now = offer.clock.now();
  const reprocessable = decideGuid(entry, guidCommands.reprocess({ maxAttempts: core.maxAttempts, now })).accepted;
  const act: LedgerAct | null = offer.ledger.mayInquire(entry, core.minAgeMs) ? "resolve" : reprocessable ? "reprocess" : null;
  if (act === null) {
    if (entry.state !== "UNKNOWN" && entry.state !== "FAILED") return html``;
    return html`<section id="acts">
      <h2>Act</h2>
      <p class="muted" id="no-act">
        ${refusalMessage(entry.state === "UNKNOWN" ? "not-asked" : "attempts-exhausted", entry, core)}
      </p>
    </section>`;
  }
  return html`<section id="acts">
    <h2>Act</h2>
    <form method="post" action="${paths.ledger(entry.guid)}/${act}" class="act" data-act="${act}">
      <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${auth.sessions.formToken(session)}" />
      <input type="hidden" name="version" value="${entry.version}" />
      <button type="submit">${act === "resolve" ? "Ask the core" : "Send again"}</button>
    </form>
    <p class="muted">
      ${
        act === "resolve"
          ? "The core's inquiry settles the entry: found → DONE with its answer, not found → FAILED."
          : `The stored request is sent again with the same GUID (attempt ${entry.attempts + 1} of at most ${core.maxAttempts}).`
      }
      The act applies only to the entry as shown (version ${entry.version}).
    </p>
  </section>`;
}
