import { REDRIVE_NOTE_MAX_LENGTH, isVerqError, type Clock, type Job, type JobEventType, type VerqErrorCode } from "@verq/core";
import type { JobQueue } from "@verq/store";
import type { FastifyInstance, FastifyReply } from "fastify";
import { html, type Html } from "../html.ts";
import { problemPage, type DashboardPaths } from "../page-shell.ts";
import { FORM_TOKEN_FIELD, seeOther, type DashboardAuth } from "./dashboard-auth.ts";
import { formBody, refusalPage } from "./login-routes.ts";
import type { DashboardSession } from "./sessions.ts";

/** The acts an operator can take on one job from its page. */
export const JOB_ACTS = ["redrive", "cancel"] as const;
export type JobAct = (typeof JOB_ACTS)[number];

/** The event each act writes: the one a job's page marks after the act. */
export const JOB_ACT_EVENTS: Readonly<Record<JobAct, JobEventType>> = { redrive: "job.redriven", cancel: "job.cancelled" };

/** The states each act is offered in: what the job machine accepts it in. */
const OFFERED: Readonly<Record<JobAct, readonly Job["state"][]>> = { redrive: ["dead"], cancel: ["pending", "leased"] };

/** The HTTP status of each refusal an act can meet; any other code of the store is 500. */
const REFUSAL_STATUS: Partial<Record<VerqErrorCode, number>> = {
  VERQ_INVALID_NOTE: 400,
  VERQ_INVALID_ARGUMENT: 400,
  VERQ_INVALID_ID: 400,
  VERQ_INVALID_DEADLINE: 400,
  VERQ_UNKNOWN_JOB: 404,
  VERQ_NOT_DEAD: 409,
  VERQ_JOB_CHANGED: 409,
  VERQ_REDRIVE_RATE_LIMITED: 429,
};

/** What the act routes need. */
export interface JobActContext {
  readonly auth: DashboardAuth;
  readonly jobs: JobQueue;
  readonly paths: DashboardPaths;
  readonly clock: Clock;
  readonly sendPage: (reply: FastifyReply, status: number, body: string) => FastifyReply;
}

/**
 * Registers `POST /jobs/:id/redrive` and `POST /jobs/:id/cancel`. Each goes through the login's
 * checks ({@link DashboardAuth.checkForm}: a session, the dashboard's own page, a form token used
 * once), then through the same `JobQueue` command as `verq jobs redrive` and `verq jobs cancel`,
 * with the form's ticket note and the version of the job the page was drawn at: the job machine
 * decides, and a job that moved on since is `VERQ_JOB_CHANGED`. Accepted, the browser is sent
 * back to the job's page, where the event the act wrote is marked; refused, a page with the code
 * and the reason, and nothing changed.
 */
export function registerJobActs(app: FastifyInstance, context: JobActContext): void {
  const { auth, jobs, paths, clock, sendPage } = context;
  for (const act of JOB_ACTS) {
    app.post<{ Params: { id: string } }>(`/jobs/:id/${act}`, async (request, reply) => {
      const body = formBody(request.body);
      const checked = auth.checkForm(request, body);
      if ("status" in checked) return sendPage(reply, checked.status, refusalPage(paths, clock.now(), checked));
      const { id } = request.params;
      const refused = (status: number, code: VerqErrorCode, message: string) =>
        sendPage(reply, status, problemPage(paths, clock.now(), status, code, message, paths.job(id)));
      const expectedVersion = Number(body.version);
      if (typeof body.version !== "string" || !/^[1-9][0-9]{0,15}$/.test(body.version)) {
        return refused(400, "VERQ_INVALID_ARGUMENT", "the form names no version of the job; reload the job's page");
      }
      const note = body.note ?? "";
      try {
        if (act === "redrive") {
          await jobs.redrive(id, { note, expectedVersion });
        } else {
          const result = await jobs.cancel(id, { note, expectedVersion });
          if (!result.cancelled) return refused(409, "VERQ_JOB_CHANGED", `the job is ${result.state}; it cannot be cancelled`);
        }
      } catch (error) {
        const status = isVerqError(error) ? REFUSAL_STATUS[error.code] : undefined;
        if (status === undefined || !isVerqError(error)) throw error;
        return refused(status, error.code, error.message);
      }
      return seeOther(reply, `${paths.job(id)}?acted=${act}#acted`);
    });
  }
}

/**
 * The forms of the acts the job's state allows, for a page drawn for `session`'s operator: each
 * with its own one-time token, the job's version, and a ticket note field the browser checks as
 * the store does (the store checks again). Nothing for a state no act is offered in.
 */
export function jobActForms(paths: DashboardPaths, auth: DashboardAuth, session: DashboardSession, job: Job): Html {
  const acts = JOB_ACTS.filter((act) => OFFERED[act].includes(job.state));
  if (acts.length === 0) return html``;
  return html`<section id="acts">
    <h2>Act</h2>
    ${acts.map(
      (act) =>
        html`<form method="post" action="${paths.job(job.id)}/${act}" class="act" data-act="${act}">
          <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${auth.sessions.formToken(session)}" />
          <input type="hidden" name="version" value="${job.version}" />
          <label
            >Ticket
            <input
              name="note"
              required
              maxlength="${REDRIVE_NOTE_MAX_LENGTH}"
              pattern="[A-Za-z0-9][A-Za-z0-9._:#/\\-]{0,63}"
              placeholder="OPS-1234"
              title="a ticket id: a letter or digit, then letters, digits or . _ : # / -"
          /></label>
          <button type="submit">${act === "redrive" ? "Redrive" : "Cancel"} this job</button>
        </form>`,
    )}
    <p class="muted">Each act is audited with its ticket, and applies only to the job as shown (version ${job.version}).</p>
  </section>`;
}
