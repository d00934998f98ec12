import type { FastifyInstance } from "fastify";
import { html } from "../html.ts";
import type { DashboardPageContext } from "../page-context.ts";
import { page, type DashboardPaths } from "../page-shell.ts";
import type { DashboardAuth } from "./dashboard-auth.ts";
import { FORM_TOKEN_FIELD, seeOther, type FormBody, type FormRefusal } from "./dashboard-auth.ts";
import { formBody, runAct } from "./run-act.ts";
import type { DashboardSession } from "./sessions.ts";

/** The largest form body the dashboard reads: a form holds a few short fields. */
export const FORM_BODY_LIMIT = 16_384;

/**
 * Registers what a dashboard with a login has beyond the pages: the parser of form bodies
 * (`application/x-www-form-urlencoded`, at most {@link FORM_BODY_LIMIT} bytes), `GET /login` (the
 * form), `POST /login` (a session cookie and back to the overview, or the form again with why
 * not) and `POST /logout` (run by `runAct`, as every form that changes something). Every refusal is a page with its `VERQ_*` code and its status, and
 * changes nothing.
 */
export function registerLoginRoutes(app: FastifyInstance, context: DashboardPageContext): void {
  const { auth, paths, sendPage } = context;
  const cookiePath = paths.prefix === "" ? "/" : paths.prefix;
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.get("/login", (request, reply) => {
    const session = auth.session(request);
    if (session !== null) return seeOther(reply, paths.home);
    return sendPage(reply, 200, loginPage(context, null));
  });

  app.post<{ Body: FormBody }>("/login", (request, reply) => {
    const outcome = auth.logIn(request, formBody(request.body), cookiePath);
    if ("cookie" in outcome) return seeOther(reply.header("set-cookie", outcome.cookie), paths.home);
    return sendPage(reply, outcome.status, loginPage(context, outcome));
  });

  app.post<{ Body: FormBody }>("/logout", (request, reply) =>
    runAct(context, request, reply, {
      run: () => {
        reply.header("set-cookie", auth.logOut(request, cookiePath));
        return { next: paths.home };
      },
    }),
  );
}

function loginPage(context: DashboardPageContext, refused: FormRefusal | null): string {
  const { auth, paths, clock } = context;
  const now = clock.now();
  return page(
    paths,
    "Log in",
    now,
    html`<section id="login">
      <h2>Log in to act</h2>
      ${
        refused !== null &&
        html`<p class="refused" role="alert" data-code="${refused.code}"><code>${refused.code}</code>: ${refused.message}</p>`
      }
      <form method="post" action="${paths.prefix}/login">
        <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${auth.sessions.loginToken(now)}" />
        ${auth.asksForUser && html`<label>User <input name="user" autocomplete="username" required maxlength="128" /></label>`}
        <label
          >${auth.asksForUser ? "Password" : "Token"}
          <input name="secret" type="password" autocomplete="current-password" required maxlength="1024"
        /></label>
        <button type="submit">Log in</button>
      </form>
      <p>Without logging in, every page can be read and nothing can be changed.</p>
    </section>`,
  );
}

/**
 * What the header of a page says of its reader on a dashboard with a login: the operator and a
 * logout form (with its own token), or that the page is read-only and where to log in.
 */
export function viewerHtml(paths: DashboardPaths, auth: DashboardAuth, session: DashboardSession | null): string {
  if (session === null) {
    return html`<span class="viewer">read-only · <a id="log-in" href="${paths.prefix}/login">Log in to act</a></span>`.text;
  }
  return html`<span class="viewer"
    >operator <code>${session.operator}</code>
    <form method="post" action="${paths.prefix}/logout" class="logout">
      <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${auth.sessions.formToken(session)}" /><button type="submit">
        Log out
      </button>
    </form></span
  >`.text;
}
