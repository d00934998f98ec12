/*
 * What the dashboard's act tests over HTTP share: the operator token the dashboard is started
 * with, a form post's header, the fields read back from a page, and a logged-in session.
 */

/** The token the test dashboards accept at their login. */
export const TOKEN = "operator-token-0123456789";

/** The header of a form post. */
export const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** The dashboard's credentials for {@link TOKEN}. */
export const TOKEN_AUTH = { credentials: { kind: "token", token: TOKEN } } as const;

/** The one-time token of the first form on `page` after the text `form` (the first form without it). */
export const tokenOf = (page: string, form = ""): string =>
  new RegExp(`${form}[\\s\\S]*?name="form_token" value="([^"]+)"`).exec(page)?.[1] ?? "";

/** The version field of the first form on `page`. */
export const versionOf = (page: string): string => /name="version" value="([^"]+)"/.exec(page)?.[1] ?? "";

/** The first `VERQ_*` code a page shows. */
export const codeOf = (page: string): string => /<code>(VERQ_[A-Z_]+)<\/code>/.exec(page)?.[1] ?? "";

/** Logs in at the dashboard on `base` with {@link TOKEN}; the session cookie (`name=value`), empty when none was set. */
export async function logIn(base: string): Promise<string> {
  const form = await (await fetch(`${base}/login`)).text();
  const login = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: FORM,
    body: new URLSearchParams({ form_token: tokenOf(form), secret: TOKEN }),
  });
  return (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
