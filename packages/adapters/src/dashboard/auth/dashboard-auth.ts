import type { Clock, VerqErrorCode } from "@verq/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { credentialsMatch, type DashboardCredentials } from "./credentials.ts";
import {
  DashboardSessions,
  DEFAULT_SESSION_LIFETIMES,
  LoginThrottle,
  sessionCookie,
  sessionIdOf,
  type DashboardSession,
  type FormTokenCheck,
  type SessionLifetimes,
} from "./sessions.ts";

/** How the dashboard lets operators act: who may log in, and how its cookie is set. */
export interface DashboardAuthOptions {
  /** The operator token, or the user and password (see `loadCredentials`). */
  readonly credentials: DashboardCredentials;
  /** Marks the cookie `Secure`: set it when the dashboard is reached over HTTPS (a proxy that ends TLS). */
  readonly secureCookie?: boolean;
  /** How long a session lasts idle and at most: 30 minutes and 8 hours. */
  readonly lifetimes?: SessionLifetimes;
}

/** Why a form was refused: its code, its HTTP status and what the operator can do. */
export interface FormRefusal {
  readonly status: 401 | 403 | 409 | 429;
  readonly code: VerqErrorCode;
  readonly message: string;
}

/** A form body as the dashboard parses it: `application/x-www-form-urlencoded`, last value of a name wins. */
export type FormBody = Readonly<Record<string, string>>;

/** The name of every form's token field. */
export const FORM_TOKEN_FIELD = "form_token";

/**
 * The dashboard's login: the credentials, the sessions and the throttle of failed logins, and
 * the checks every form goes through before it may change anything ({@link checkForm}).
 */
export class DashboardAuth {
  readonly sessions: DashboardSessions;
  readonly #throttle = new LoginThrottle();
  readonly #credentials: DashboardCredentials;
  readonly #secure: boolean;
  readonly #clock: Clock;

  constructor(options: DashboardAuthOptions, clock: Clock) {
    this.#credentials = options.credentials;
    this.#secure = options.secureCookie === true;
    this.#clock = clock;
    this.sessions = new DashboardSessions(options.lifetimes ?? DEFAULT_SESSION_LIFETIMES);
  }

  /** Whether the login form asks for a user as well as a secret. */
  get asksForUser(): boolean {
    return this.#credentials.kind === "password";
  }

  /** The session the request's cookie names, if it is live. */
  session(request: FastifyRequest): DashboardSession | null {
    return this.sessions.find(sessionIdOf(request.headers.cookie), this.#clock.now());
  }

  /**
   * Logs in with the form's `user` and `secret`: a session and its cookie, or a refusal. Checked
   * in this order: the request comes from the dashboard's own page, the address has not failed
   * too often lately, the form's token is one this process made and is used once, the credentials
   * match (compared in constant time). A wrong login counts against the address.
   */
  logIn(request: FastifyRequest, body: FormBody, cookiePath: string): { cookie: string } | FormRefusal {
    const now = this.#clock.now();
    const crossSite = crossSiteRefusal(request);
    if (crossSite !== null) return crossSite;
    if (!this.#throttle.allows(request.ip, now)) {
      return {
        status: 429,
        code: "VERQ_LOGIN_THROTTLED",
        message: "too many failed logins from this address; wait a minute and try again",
      };
    }
    const token = tokenRefusal(this.sessions.useLoginToken(body[FORM_TOKEN_FIELD], now));
    if (token !== null) return token;
    if (!credentialsMatch(this.#credentials, { user: body.user, secret: body.secret ?? "" })) {
      this.#throttle.failed(request.ip, now);
      return { status: 401, code: "VERQ_UNAUTHENTICATED", message: "the user or the password is wrong (or the token is)" };
    }
    const operator = this.#credentials.kind === "password" ? this.#credentials.user : "token";
    const session = this.sessions.open(operator, now);
    return { cookie: sessionCookie(session.id, { path: cookiePath, secure: this.#secure }) };
  }

  /** The cookie that ends the request's session, which is closed. */
  logOut(request: FastifyRequest, cookiePath: string): string {
    this.sessions.close(sessionIdOf(request.headers.cookie));
    return sessionCookie(null, { path: cookiePath, secure: this.#secure });
  }

  /**
   * What every form that changes something goes through: a live session, a request from the
   * dashboard's own page, and a form token made for this session and not used before (it is used
   * up here). The session, or why the form is refused; nothing else is read or changed first.
   */
  checkForm(request: FastifyRequest, body: FormBody): DashboardSession | FormRefusal {
    const session = this.session(request);
    if (session === null) {
      return { status: 401, code: "VERQ_UNAUTHENTICATED", message: "log in to act; the session has ended or never began" };
    }
    const crossSite = crossSiteRefusal(request);
    if (crossSite !== null) return crossSite;
    return tokenRefusal(this.sessions.useFormToken(session, body[FORM_TOKEN_FIELD])) ?? session;
  }
}

/** A form's token that is not `ok`, as a refusal. */
function tokenRefusal(check: FormTokenCheck): FormRefusal | null {
  if (check === "ok") return null;
  if (check === "used") {
    return {
      status: 409,
      code: "VERQ_FORM_USED",
      message: "this form was already sent (or is too old); nothing was changed. Reload the page and try again",
    };
  }
  return { status: 403, code: "VERQ_FORBIDDEN", message: "this form was not made by this dashboard for this session" };
}

/**
 * A request another site's page made. The browser says so in `Sec-Fetch-Site`, which every
 * current browser sends and no page can change; without it, an `Origin` that is not this
 * server's says so. (The pages' `Referrer-Policy: no-referrer` makes a browser send
 * `Origin: null` even for the dashboard's own forms, so `null` proves nothing either way.) A
 * request with neither header (a script of the operator's own) is left to the form token.
 */
function crossSiteRefusal(request: FastifyRequest): FormRefusal | null {
  const site = request.headers["sec-fetch-site"];
  const origin = request.headers.origin;
  const fromElsewhere =
    site !== undefined
      ? site !== "same-origin"
      : origin !== undefined && origin !== "null" && origin !== `${request.protocol}://${request.host}`;
  if (!fromElsewhere) return null;
  return { status: 403, code: "VERQ_FORBIDDEN", message: "a form of another site cannot act on this dashboard" };
}

/** Sends `reply` on to `location` after a form was accepted (303: the browser follows with a GET). */
export const seeOther = (reply: FastifyReply, location: string): FastifyReply =>
  reply.code(303).header("location", location).send();
