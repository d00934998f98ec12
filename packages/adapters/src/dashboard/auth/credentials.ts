import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { MessageError, VerqError } from "@verq/core";

/**
 * Who may act on the dashboard: one operator token, or one user with a password. Read from a
 * file or from the environment ({@link loadCredentials}), never from a command line, where any
 * user of the host could read it in the process list.
 */
export type DashboardCredentials =
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "password"; readonly user: string; readonly password: string };

/** What a login form submits. */
export interface LoginAttempt {
  readonly user?: string | undefined;
  readonly secret: string;
}

/** The shortest token or password accepted: a shorter one is guessed by a patient attacker. */
export const MIN_SECRET_LENGTH = 16;

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);

/**
 * Reads the dashboard's credentials from `file` when given, otherwise from the environment
 * (`VERQ_DASHBOARD_TOKEN`, or `VERQ_DASHBOARD_USER` and `VERQ_DASHBOARD_PASSWORD`); `null` when neither names any, which leaves the dashboard
 * read-only. The file holds `token=…`, or `user=…` and `password=…`, one per line (`#` starts a
 * comment); it must not be readable by other users of the host (mode `600` or stricter). A token
 * or password shorter than {@link MIN_SECRET_LENGTH}, a token together with a user, a user
 * without a password, or an unknown key is `VERQ_INVALID_ARGUMENT`; a missing file is
 * `VERQ_FILE_NOT_FOUND`. The secrets never appear in a message.
 */
export function loadCredentials(source: {
  readonly file?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}): DashboardCredentials | null {
  if (source.file !== undefined) return parseCredentials(readCredentialFile(source.file), `the file ${resolve(source.file)}`);
  const { env } = source;
  const given = {
    token: env.VERQ_DASHBOARD_TOKEN,
    user: env.VERQ_DASHBOARD_USER,
    password: env.VERQ_DASHBOARD_PASSWORD,
  };
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) if (value !== undefined && value !== "") values[key] = value;
  if (Object.keys(values).length === 0) return null;
  return checkCredentials(values, "the environment");
}

function readCredentialFile(file: string): string {
  const path = resolve(file);
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw invalid(`the credentials file ${path} is not a file`);
    mode = stat.mode;
  } catch (error) {
    if (error instanceof VerqError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new MessageError("VERQ_FILE_NOT_FOUND", `no credentials file at ${path}`);
    }
    throw invalid(`the credentials file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "an error"})`);
  }
  // On POSIX hosts: a secret others can read is no secret (Windows has no such bits to check).
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    throw invalid(`the credentials file ${path} can be read by other users; make it private (chmod 600)`);
  }
  return readFileSync(path, "utf8");
}

/** The `key=value` lines of a credentials file, checked. */
export function parseCredentials(text: string, where: string): DashboardCredentials {
  const values: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const eq = line.indexOf("=");
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    if (eq < 0 || !(key === "token" || key === "user" || key === "password")) {
      throw invalid(`${where}, line ${index + 1}: expected token=…, user=… or password=…`);
    }
    if (key in values) throw invalid(`${where}, line ${index + 1}: ${key} is given twice`);
    values[key] = line.slice(eq + 1).trim();
  });
  return checkCredentials(values, where);
}

function checkCredentials(values: Readonly<Record<string, string>>, where: string): DashboardCredentials {
  const { token, user, password } = values;
  if (token !== undefined) {
    if (user !== undefined || password !== undefined) throw invalid(`${where} gives a token and a user or password: give one`);
    return { kind: "token", token: checkSecret(token, "the token", where) };
  }
  if (user === undefined || user === "") throw invalid(`${where} gives a password without a user`);
  if (password === undefined) throw invalid(`${where} gives a user without a password`);
  if (user.length > 128 || /[\s:]/.test(user)) throw invalid(`${where}: the user must be 1-128 characters without spaces or ':'`);
  return { kind: "password", user, password: checkSecret(password, "the password", where) };
}

function checkSecret(secret: string, what: string, where: string): string {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw invalid(`${where}: ${what} must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (secret.length > 1024) throw invalid(`${where}: ${what} must be at most 1024 characters`);
  return secret;
}

/**
 * Whether `attempt` matches `credentials`, in a time that does not depend on how much of either
 * matched: both sides are hashed to the same length and compared with `timingSafeEqual`, and the
 * user and the secret are both compared before the answers are combined.
 */
export function credentialsMatch(credentials: DashboardCredentials, attempt: LoginAttempt): boolean {
  if (credentials.kind === "token") return sameText(credentials.token, attempt.secret);
  const userMatches = sameText(credentials.user, attempt.user ?? "");
  const secretMatches = sameText(credentials.password, attempt.secret);
  return userMatches && secretMatches;
}

/** Compares two texts in constant time (for texts of any length, through their SHA-256 digests). */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
