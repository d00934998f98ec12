import { REDRIVE_NOTE_MAX_LENGTH, type Job, type JobEventType } from "@verq/core";
import type { JobQueue } from "@verq/store";
import type { FastifyInstance } from "fastify";
import { html, type Html } from "../html.ts";
import type { DashboardPageContext } from "../page-context.ts";
import type { DashboardPaths } from "../page-shell.ts";
import { FORM_TOKEN_FIELD, type DashboardAuth } from "./dashboard-auth.ts";
import { asShown, refusal, runAct } from "./run-act.ts";
import type { DashboardSession } from "./sessions.ts";

/** The acts an operator can take on one job from its page. */
export const JOB_ACTS = ["redrive", "cancel"] as const;
export type JobAct = (typeof JOB_ACTS)[number];

/** The event each act writes: the one a job's page marks after the act. */
export const JOB_ACT_EVENTS: Readonly<Record<JobAct, JobEventType>> = { redrive: "job.redriven", cancel: "job.cancelled" };

/** The states each act is offered in: what the job machine accepts it in. */
const OFFERED: Readonly<Record<JobAct, readonly Job["state"][]>> = { redrive: ["dead"], cancel: ["pending", "leased"] };

/**
 * Registers `POST /jobs/:id/redrive` and `POST /jobs/:id/cancel`, each run by {@link runAct} (the
 * login's checks first) through the same `JobQueue` command as `verq jobs redrive` and `verq jobs
 * cancel`, with the form's ticket note and the version of the job the page was drawn at: a job
 * that moved on since is the store's `VERQ_JOB_CHANGED`; otherwise the job machine decides, and
 * its refusal is its own code (`VERQ_NOT_DEAD` for a redrive, `VERQ_NOT_CANCELLABLE` for a cancel
 * of a job that already ended). Accepted, the browser is sent back to the job's page, where the
 * event the act wrote is marked; refused, a page with the code and the reason, and nothing changed.
 */
export function registerJobActs(app: FastifyInstance, context: DashboardPageContext, jobs: JobQueue): void {
  for (const act of JOB_ACTS) {
    app.post<{ Params: { id: string } }>(`/jobs/:id/${act}`, (request, reply) => {
      const { id } = request.params;
      return runAct(context, request, reply, {
        back: () => context.paths.job(id),
        run: asShown("job", async ({ body }, expectedVersion) => {
          const note = body.note ?? "";
          if (act === "redrive") {
            await jobs.redrive(id, { note, expectedVersion });
          } else {
            const result = await jobs.cancel(id, { note, expectedVersion });
            if (!result.cancelled) {
              const message = `the job is ${result.state}; only a pending or leased job can be cancelled. Nothing was done`;
              return refusal("VERQ_NOT_CANCELLABLE", message);
            }
          }
          return { next: `${context.paths.job(id)}?acted=${act}#acted` };
        }),
      });
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
