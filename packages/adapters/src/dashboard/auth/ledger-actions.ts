import {
  decideGuid,
  guidCommands,
  isVerqError,
  type Clock,
  type GuidEventType,
  type GuidRefusal,
  type LedgerEntry,
  type VerqErrorCode,
} from "@verq/core";
import type { GuidLedger } from "@verq/store";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { CoreClient } from "../../relay/core-client.ts";
import { reprocessOne } from "../../relay/reprocess-failed.ts";
import { resolveOne } from "../../relay/resolve-unknown.ts";
import { html, type Html } from "../html.ts";
import { problemPage, time, type DashboardPaths } from "../page-shell.ts";
import { FORM_TOKEN_FIELD, seeOther, type DashboardAuth } from "./dashboard-auth.ts";
import { formBody, refusalPage } from "./login-routes.ts";
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

/** What the ledger act routes need. */
export interface LedgerActContext {
  readonly auth: DashboardAuth;
  readonly ledger: GuidLedger;
  readonly core: DashboardCoreOptions;
  readonly paths: DashboardPaths;
  readonly clock: Clock;
  readonly sendPage: (reply: FastifyReply, status: number, body: string) => FastifyReply;
}

/** The HTTP status of each code the store may refuse an act with; any other code is 500. */
const REFUSAL_STATUS: Partial<Record<VerqErrorCode, number>> = {
  VERQ_INVALID_ARGUMENT: 400,
  VERQ_INVALID_GUID: 400,
  VERQ_UNKNOWN_GUID: 404,
  VERQ_ENTRY_CHANGED: 409,
};

/** What the operator is told when the guid machine refuses an act on the entry as it is now. */
function refusalMessage(refusal: GuidRefusal | "not-asked", entry: LedgerEntry, core: Required<DashboardCoreOptions>): string {
  if (entry.state === "UNKNOWN" && (refusal === "not-asked" || refusal === "too-young")) {
    return `the entry changed less than the min age ago; the core may still be processing it: ask after ${time(entry.updatedAt + core.minAgeMs)}`;
  }
  if (refusal === "attempts-exhausted") {
    return `the entry is at its attempt cap (${entry.attempts} of ${core.maxAttempts}); it is not sent again`;
  }
  return `the entry is ${entry.state}, version ${entry.version}; nothing was done. Reload its page and decide again`;
}

/**
 * Registers `POST /ledger/:guid/resolve` and `POST /ledger/:guid/reprocess`. Each goes through
 * the login's checks ({@link DashboardAuth.checkForm}), then through the same operation as `verq
 * relay resolve` and `verq relay reprocess` for one entry (`resolveOne`, `reprocessOne`), with the
 * version of the entry the page was drawn at: the guid machine decides, and an entry that moved on
 * since is `VERQ_ENTRY_CHANGED`. A refusal of the machine (too young, not UNKNOWN, not FAILED, at
 * the cap) is a 409 page with `VERQ_ENTRY_CHANGED` too; an inquiry the core did not answer is a
 * 502 page with `VERQ_RETRYABLE` and the entry left UNKNOWN. Accepted, the browser is sent back to
 * the entry's page, where the event the act ended with is marked. A reprocess whose call to the
 * core failed is recorded as that call is for a channel request, and the page shows it.
 */
export function registerLedgerActs(app: FastifyInstance, context: LedgerActContext): void {
  const { auth, ledger, paths, clock, sendPage } = context;
  const core = settingsOf(context.core);
  const relay = { ledger, core: core.client };
  for (const act of LEDGER_ACTS) {
    app.post<{ Params: { guid: string } }>(`/ledger/:guid/${act}`, async (request, reply) => {
      const body = formBody(request.body);
      const checked = auth.checkForm(request, body);
      if ("status" in checked) return sendPage(reply, checked.status, refusalPage(paths, clock.now(), checked));
      const { guid } = request.params;
      const refused = (status: number, code: VerqErrorCode, message: string) =>
        sendPage(reply, status, problemPage(paths, clock.now(), status, code, message, paths.ledger(guid)));
      if (typeof body.version !== "string" || !/^[1-9][0-9]{0,15}$/.test(body.version)) {
        return refused(400, "VERQ_INVALID_ARGUMENT", "the form names no version of the entry; reload the entry's page");
      }
      const expectedVersion = Number(body.version);
      const gone = () => refused(404, "VERQ_UNKNOWN_GUID", `the ledger has no entry for GUID ${guid}`);
      try {
        if (act === "resolve") {
          const result = await resolveOne(relay, guid, { minAgeMs: core.minAgeMs, expectedVersion });
          if (result.outcome === "gone") return gone();
          if (result.outcome === "inquiry-error") {
            const message = `the core did not answer the inquiry (${result.reason}); the entry is left UNKNOWN: try again later`;
            return refused(502, "VERQ_RETRYABLE", message);
          }
          if (result.outcome !== "settled") {
            const refusal = result.outcome === "refused" ? result.refusal : "not-asked";
            return refused(409, "VERQ_ENTRY_CHANGED", refusalMessage(refusal, result.entry, core));
          }
        } else {
          const item = await reprocessOne(relay, guid, { maxAttempts: core.maxAttempts, expectedVersion });
          if (item.outcome === "gone") return gone();
          if (item.outcome === "refused") {
            const entry = await ledger.get(guid);
            if (entry === null) return gone();
            return refused(409, "VERQ_ENTRY_CHANGED", refusalMessage(item.refusal, entry, core));
          }
        }
      } catch (error) {
        const status = isVerqError(error) ? REFUSAL_STATUS[error.code] : undefined;
        if (status === undefined || !isVerqError(error)) throw error;
        return refused(status, error.code, error.message);
      }
      return seeOther(reply, `${paths.ledger(guid)}?acted=${act}#acted`);
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
