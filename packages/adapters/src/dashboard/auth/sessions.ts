import { createHmac, randomBytes } from "node:crypto";
import { sameText } from "./credentials.ts";

/** How long a session lasts without a request, and at most. */
export interface SessionLifetimes {
  /** A session unused for this long ends: 30 minutes. */
  readonly idleMs: number;
  /** A session ends this long after its login, however used: 8 hours. */
  readonly maxMs: number;
}

export const DEFAULT_SESSION_LIFETIMES: SessionLifetimes = { idleMs: 30 * 60_000, maxMs: 8 * 3_600_000 };

/** One logged-in operator's session. */
export interface DashboardSession {
  /** The cookie's value: 32 random bytes. */
  readonly id: string;
  /** Who logged in: the user, or `token` for the operator token. */
  readonly operator: string;
  readonly createdAt: number;
  lastSeenAt: number;
  /** Form nonces issued and not yet used, oldest first. */
  readonly nonces: Set<string>;
}

/** How many forms a session may have open at once; older ones stop being accepted. */
const MAX_OPEN_FORMS = 256;

/** How long a login form may be sent after it was drawn: 10 minutes. */
export const LOGIN_FORM_MS = 10 * 60_000;

/** What {@link DashboardSessions.useFormToken} answers. */
export type FormTokenCheck = "ok" | "forged" | "used";

/**
 * The dashboard's sessions, in this process's memory (a restart logs everyone out).
 *
 * Every form a session is shown carries a token of its own (a fresh nonce and its HMAC under a
 * key that never leaves the process): a form submitted with a token this process did not make
 * for this session is `forged`, and a token already used once is `used` (a replayed form), so
 * each form acts at most once. Cross-site requests never carry the cookie at all: it is
 * `SameSite=Strict` ({@link sessionCookie}).
 */
export class DashboardSessions {
  readonly #sessions = new Map<string, DashboardSession>();
  readonly #key = randomBytes(32);
  readonly #lifetimes: SessionLifetimes;
  /** Login tokens used, with the time each was made, until they are too old to be accepted anyway. */
  readonly #usedLogins = new Map<string, number>();

  constructor(lifetimes: SessionLifetimes = DEFAULT_SESSION_LIFETIMES) {
    this.#lifetimes = lifetimes;
  }

  /** Starts a session for `operator` at `now`. */
  open(operator: string, now: number): DashboardSession {
    this.#sweep(now);
    const session: DashboardSession = {
      id: randomBytes(32).toString("base64url"),
      operator,
      createdAt: now,
      lastSeenAt: now,
      nonces: new Set(),
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session of the cookie value `id` at `now`, which it keeps alive; `null` for none. */
  find(id: string | undefined, now: number): DashboardSession | null {
    if (id === undefined) return null;
    const session = this.#sessions.get(id);
    if (session === undefined) return null;
    if (this.#expired(session, now)) {
      this.#sessions.delete(id);
      return null;
    }
    session.lastSeenAt = now;
    return session;
  }

  /** Ends the session `id` (logout); nothing when there is none. */
  close(id: string | undefined): void {
    if (id !== undefined) this.#sessions.delete(id);
  }

  /** A token for one form shown to `session`: accepted once, by {@link useFormToken}. */
  formToken(session: DashboardSession): string {
    const nonce = randomBytes(18).toString("base64url");
    session.nonces.add(nonce);
    if (session.nonces.size > MAX_OPEN_FORMS) {
      const [oldest] = session.nonces;
      if (oldest !== undefined) session.nonces.delete(oldest);
    }
    return `${nonce}.${this.#sign(session, nonce)}`;
  }

  /**
   * Checks the token a form came back with and uses it up: `forged` when this process did not
   * make it for `session` (or it is malformed), `used` when it was used before or has been
   * pushed out by newer forms, `ok` otherwise.
   */
  useFormToken(session: DashboardSession, token: unknown): FormTokenCheck {
    if (typeof token !== "string" || token.length > 200) return "forged";
    const dot = token.indexOf(".");
    if (dot < 1) return "forged";
    const nonce = token.slice(0, dot);
    if (!sameText(this.#sign(session, nonce), token.slice(dot + 1))) return "forged";
    if (!session.nonces.delete(nonce)) return "used";
    return "ok";
  }

  /**
   * A token for the login form, which no session holds yet: a nonce, the time it was made and
   * their HMAC; accepted once, within {@link LOGIN_FORM_MS}, by {@link useLoginToken}.
   */
  loginToken(now: number): string {
    const body = `${randomBytes(18).toString("base64url")}~${now}`;
    return `${body}.${this.#signLogin(body)}`;
  }

  /** Checks and uses up a login form's token: as {@link useFormToken}, and `used` once it is too old. */
  useLoginToken(token: unknown, now: number): FormTokenCheck {
    if (typeof token !== "string" || token.length > 200) return "forged";
    const dot = token.lastIndexOf(".");
    if (dot < 1) return "forged";
    const body = token.slice(0, dot);
    if (!sameText(this.#signLogin(body), token.slice(dot + 1))) return "forged";
    const issuedAt = Number(body.slice(body.indexOf("~") + 1));
    if (now - issuedAt >= LOGIN_FORM_MS || now < issuedAt || this.#usedLogins.has(body)) return "used";
    this.#usedLogins.set(body, issuedAt);
    for (const [used, at] of this.#usedLogins) if (now - at >= LOGIN_FORM_MS) this.#usedLogins.delete(used);
    return "ok";
  }

  #signLogin(body: string): string {
    return createHmac("sha256", this.#key).update("login\0").update(body).digest("base64url");
  }

  #sign(session: DashboardSession, nonce: string): string {
    return createHmac("sha256", this.#key).update(session.id).update("\0").update(nonce).digest("base64url");
  }

  #expired(session: DashboardSession, now: number): boolean {
    return now - session.lastSeenAt >= this.#lifetimes.idleMs || now - session.createdAt >= this.#lifetimes.maxMs;
  }

  #sweep(now: number): void {
    for (const [id, session] of this.#sessions) if (this.#expired(session, now)) this.#sessions.delete(id);
  }
}

/** The name of the dashboard's session cookie. */
export const SESSION_COOKIE = "verq_session";

/**
 * The `Set-Cookie` value of a session: `HttpOnly` (no script can read it), `SameSite=Strict`
 * (no other site's page sends it), limited to the dashboard's `path`, `Secure` when the
 * dashboard is served over HTTPS. `null` for the value ends the session's cookie.
 */
export function sessionCookie(value: string | null, options: { readonly path: string; readonly secure: boolean }): string {
  const parts = [
    `${SESSION_COOKIE}=${value ?? ""}`,
    `Path=${options.path}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(value === null ? ["Max-Age=0"] : []),
    ...(options.secure ? ["Secure"] : []),
  ];
  return parts.join("; ");
}

/** The session cookie's value in a `Cookie` header, if any. */
export function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const pair of cookieHeader.split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Failed logins per client address: after `max` failures in `windowMs`, logins from that
 * address are refused until the oldest failure leaves the window, right or wrong, so that a
 * password cannot be guessed at the speed of the network.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();

  constructor(
    readonly max = 5,
    readonly windowMs = 60_000,
  ) {}

  /** Whether `address` may try to log in at `now`. */
  allows(address: string, now: number): boolean {
    return this.#recent(address, now).length < this.max;
  }

  /** Records a failed login from `address` at `now`. */
  failed(address: string, now: number): void {
    this.#failures.set(address, [...this.#recent(address, now), now]);
  }

  #recent(address: string, now: number): number[] {
    const recent = (this.#failures.get(address) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length === 0) this.#failures.delete(address);
    else this.#failures.set(address, recent);
    return recent;
  }
}
