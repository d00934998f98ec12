import { isVerqError, type VerqErrorCode } from "@verq/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { DashboardPageContext } from "../page-context.ts";
import { PAGE_STATUS } from "../page-errors.ts";
import { problemPage, type DashboardPaths } from "../page-shell.ts";
import { seeOther, type FormBody, type FormRefusal } from "./dashboard-auth.ts";
import type { DashboardSession } from "./sessions.ts";

/** Why an act was refused: its code (its status is {@link PAGE_STATUS}'s) and what the operator can do. */
export interface ActRefusal {
  readonly code: VerqErrorCode;
  readonly message: string;
}

/** What an act ended with: the page the browser is sent on to, or why nothing was done. */
export type ActOutcome = { readonly next: string } | ActRefusal;

/** A form that passed the login's checks: its fields and the operator's session. */
export interface CheckedForm {
  readonly body: FormBody;
  readonly session: DashboardSession;
}

/** One act a form asks for. */
export interface FormAct {
  /** The page a refusal links back to, from the form's fields; without it, the overview. */
  readonly back?: (body: FormBody) => string;
  /** Does the act, once the form passed the login's checks. */
  readonly run: (form: CheckedForm) => ActOutcome | Promise<ActOutcome>;
}

/** A parsed body, or an empty one for a request that sent none. */
export const formBody = (body: unknown): FormBody =>
  typeof body === "object" && body !== null ? (body as FormBody) : Object.freeze({});

/** The page of a refused form: its status, code and what to do. */
export function refusalPage(paths: DashboardPaths, at: number, refusal: FormRefusal): string {
  return problemPage(paths, at, refusal.status, refusal.code, refusal.message);
}

/** A refusal of an act with `code`. */
export const refusal = (code: VerqErrorCode, message: string): ActRefusal => ({ code, message });

/**
 * Runs the act of a form, as every route that writes does: the login's checks first
 * ({@link DashboardAuth.checkForm}: a session, the dashboard's own page, a form token used once),
 * then `act.run`. Accepted, the browser is sent on (303); refused, by what `run` returns or by a
 * verq error it throws whose code {@link PAGE_STATUS} holds, a page with the code, its status
 * (400 for a returned code the table does not hold) and a link back. Any other error is thrown
 * on to the plugin's error handler.
 */
export async function runAct(
  page: DashboardPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  act: FormAct,
): Promise<FastifyReply> {
  const { auth, paths, clock, sendPage } = page;
  const body = formBody(request.body);
  const session = auth.checkForm(request, body);
  if ("status" in session) return sendPage(reply, session.status, refusalPage(paths, clock.now(), session));
  let outcome: ActOutcome;
  try {
    outcome = await act.run({ body, session });
  } catch (error) {
    if (!isVerqError(error) || PAGE_STATUS[error.code] === undefined) throw error;
    outcome = refusal(error.code, error.message);
  }
  if ("next" in outcome) return seeOther(reply, outcome.next);
  const status = PAGE_STATUS[outcome.code] ?? 400;
  return sendPage(reply, status, problemPage(paths, clock.now(), status, outcome.code, outcome.message, act.back?.(body)));
}

/**
 * An act on one job or entry "as shown": the form's `version` (a whole number from 1) is passed
 * to `run`; a form without one is refused with `VERQ_INVALID_ARGUMENT`, naming `what` it is the
 * version of ("job", "entry").
 */
export function asShown(what: string, run: (form: CheckedForm, expectedVersion: number) => Promise<ActOutcome>): FormAct["run"] {
  return (form) => {
    const { version } = form.body;
    if (typeof version !== "string" || !/^[1-9][0-9]{0,15}$/.test(version)) {
      return refusal("VERQ_INVALID_ARGUMENT", `the form names no version of the ${what}; reload the ${what}'s page`);
    }
    return run(form, Number(version));
  };
}
