import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { credentialsMatch, loadCredentials, parseCredentials, sameText } from "../../src/dashboard/auth/credentials.ts";
import {
  DashboardSessions,
  LoginThrottle,
  SESSION_COOKIE,
  sessionCookie,
  sessionIdOf,
} from "../../src/dashboard/auth/sessions.ts";

const TOKEN = "t0ken-of-sixteen-chars-or-more";
const PASSWORD = "correct horse battery staple";

const codeOf = (run: () => unknown): { code: string; message: string } => {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected an error");
};

describe("dashboard credentials", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const file = (text: string, mode: number): string => {
    const dir = mkdtempSync(join(tmpdir(), "verq-auth-"));
    dirs.push(dir);
    const path = join(dir, "credentials");
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };

  it("reads a token or a user and password from the environment, and nothing means read-only", () => {
    expect(loadCredentials({ env: { VERQ_DASHBOARD_TOKEN: TOKEN } })).toEqual({ kind: "token", token: TOKEN });
    expect(loadCredentials({ env: { VERQ_DASHBOARD_USER: "ops", VERQ_DASHBOARD_PASSWORD: PASSWORD } })).toEqual({
      kind: "password",
      user: "ops",
      password: PASSWORD,
    });
    expect(loadCredentials({ env: {} })).toBeNull();
    expect(loadCredentials({ env: { VERQ_DASHBOARD_TOKEN: "" } })).toBeNull();
  });

  it("reads a private file, comments and blank lines aside", () => {
    const path = file(`# dashboard\n\nuser = ops\npassword=${PASSWORD}\n`, 0o600);
    expect(loadCredentials({ file: path, env: { VERQ_DASHBOARD_TOKEN: TOKEN } })).toEqual({
      kind: "password",
      user: "ops",
      password: PASSWORD,
    });
  });

  it.skipIf(process.platform === "win32")("refuses a file other users can read, without naming its secret", () => {
    const error = codeOf(() => loadCredentials({ file: file(`token=${TOKEN}\n`, 0o644), env: {} }));
    expect(error.code).toBe("VERQ_INVALID_ARGUMENT");
    expect(error.message).toContain("chmod 600");
    expect(error.message).not.toContain(TOKEN);
  });

  it("refuses a missing file with its own code", () => {
    expect(codeOf(() => loadCredentials({ file: "/nonexistent/verq-credentials", env: {} })).code).toBe("VERQ_FILE_NOT_FOUND");
  });

  it.each([
    ["a short token", "token=short"],
    ["a token and a user", `token=${TOKEN}\nuser=ops`],
    ["a user without a password", "user=ops"],
    ["a password without a user", `password=${PASSWORD}`],
    ["an unknown key", `secret=${PASSWORD}`],
    ["a line without a key", PASSWORD],
    ["a key given twice", `token=${TOKEN}\ntoken=${TOKEN}`],
    ["a user with a colon", `user=a:b\npassword=${PASSWORD}`],
  ])("refuses %s and never names the secret", (_what, text) => {
    const error = codeOf(() => parseCredentials(text, "the test file"));
    expect(error.code).toBe("VERQ_INVALID_ARGUMENT");
    expect(error.message).not.toContain(PASSWORD);
    expect(error.message).not.toContain(TOKEN);
  });

  it("matches only the exact token, or the exact user and password together", () => {
    const token = { kind: "token", token: TOKEN } as const;
    expect(credentialsMatch(token, { secret: TOKEN })).toBe(true);
    expect(credentialsMatch(token, { secret: `${TOKEN}x` })).toBe(false);
    expect(credentialsMatch(token, { secret: TOKEN.slice(0, -1) })).toBe(false);
    const password = { kind: "password", user: "ops", password: PASSWORD } as const;
    expect(credentialsMatch(password, { user: "ops", secret: PASSWORD })).toBe(true);
    expect(credentialsMatch(password, { user: "Ops", secret: PASSWORD })).toBe(false);
    expect(credentialsMatch(password, { user: "ops", secret: TOKEN })).toBe(false);
    expect(credentialsMatch(password, { secret: PASSWORD })).toBe(false);
    expect(sameText("", "")).toBe(true);
    expect(sameText("a", "b")).toBe(false);
  });
});

describe("dashboard sessions", () => {
  const lifetimes = { idleMs: 1_000, maxMs: 5_000 };

  it("finds a session by its cookie until it is idle too long, closed, or too old", () => {
    const sessions = new DashboardSessions(lifetimes);
    const a = sessions.open("ops", 0);
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.find(a.id, 999)).toBe(a);
    expect(sessions.find(a.id, 1_998)).toBe(a);
    expect(sessions.find(a.id, 2_998)).toBeNull();
    const b = sessions.open("ops", 10_000);
    expect(b.id).not.toBe(a.id);
    for (let t = 10_500; t < 15_000; t += 500) expect(sessions.find(b.id, t)).toBe(b);
    expect(sessions.find(b.id, 15_000)).toBeNull();
    const c = sessions.open("ops", 20_000);
    sessions.close(c.id);
    expect(sessions.find(c.id, 20_001)).toBeNull();
    expect(sessions.find(undefined, 20_001)).toBeNull();
    expect(sessions.find("not-a-session", 20_001)).toBeNull();
  });

  it("accepts each form token once, for its own session only", () => {
    const sessions = new DashboardSessions(lifetimes);
    const mine = sessions.open("ops", 0);
    const other = sessions.open("ops", 0);
    const token = sessions.formToken(mine);
    const others = sessions.formToken(other);
    expect(sessions.useFormToken(mine, others)).toBe("forged");
    expect(sessions.useFormToken(mine, `${token}x`)).toBe("forged");
    expect(sessions.useFormToken(mine, `x${token}`)).toBe("forged");
    expect(sessions.useFormToken(mine, token.split(".")[0])).toBe("forged");
    expect(sessions.useFormToken(mine, undefined)).toBe("forged");
    expect(sessions.useFormToken(mine, ["a"])).toBe("forged");
    expect(sessions.useFormToken(mine, token)).toBe("ok");
    expect(sessions.useFormToken(mine, token)).toBe("used");
    expect(sessions.useFormToken(other, others)).toBe("ok");
  });

  it("keeps only the newest forms open", () => {
    const sessions = new DashboardSessions(lifetimes);
    const session = sessions.open("ops", 0);
    const first = sessions.formToken(session);
    const tokens = Array.from({ length: 256 }, () => sessions.formToken(session));
    expect(sessions.useFormToken(session, first)).toBe("used");
    for (const token of tokens) expect(sessions.useFormToken(session, token)).toBe("ok");
  });

  it("sets an HttpOnly, SameSite=Strict cookie on the dashboard's path, and reads it back", () => {
    const cookie = sessionCookie("abc", { path: "/ops", secure: false });
    expect(cookie.split("; ")).toEqual([`${SESSION_COOKIE}=abc`, "Path=/ops", "HttpOnly", "SameSite=Strict"]);
    expect(sessionCookie("abc", { path: "/", secure: true })).toContain("; Secure");
    expect(sessionCookie(null, { path: "/", secure: false })).toContain("Max-Age=0");
    expect(sessionIdOf(`a=1; ${SESSION_COOKIE}=xyz; b=2`)).toBe("xyz");
    expect(sessionIdOf("a=1")).toBeUndefined();
    expect(sessionIdOf(undefined)).toBeUndefined();
  });

  it("refuses logins from an address after too many failures, until they leave the window", () => {
    const throttle = new LoginThrottle(3, 1_000);
    for (let i = 0; i < 3; i++) {
      expect(throttle.allows("10.0.0.1", i)).toBe(true);
      throttle.failed("10.0.0.1", i);
    }
    expect(throttle.allows("10.0.0.1", 500)).toBe(false);
    expect(throttle.allows("10.0.0.2", 500)).toBe(true);
    expect(throttle.allows("10.0.0.1", 1_000)).toBe(true);
  });
});
