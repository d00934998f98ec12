import { JobQueue, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDashboardServer } from "../../src/dashboard/dashboard-server.ts";
import { createLogger } from "../../src/logging.ts";
import { SEEDED, seedDashboard } from "./support/seed-dashboard.ts";
import { FORM, TOKEN, TOKEN_AUTH, tokenOf } from "./support/act-session.ts";

/*
 * O2 over real HTTP on 127.0.0.1, on both engines: read-only unless started with credentials;
 * with them, a login sets a session, failed logins are throttled per address, every act needs
 * the session and a form token, logout ends the session, and neither a secret nor a note's text
 * reaches the request log.
 */

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dashboard's login`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let app: FastifyInstance;
    let base: string;
    let logLines: string[];

    beforeEach(async () => {
      database = await createTestDatabase(engine, "dashboard-login.sqlite");
      store = await database.open();
      await seedDashboard(store);
      logLines = [];
      const logger = createLogger({ name: "dashboard", destination: { write: (line: string) => void logLines.push(line) } });
      app = createDashboardServer({ store, logger, auth: TOKEN_AUTH });
      base = await app.listen({ port: 0, host: "127.0.0.1" });
    });
    afterEach(async () => {
      await app.close();
      await store.close();
      await database.dispose();
    });

    const logIn = async (secret: string): Promise<Response> => {
      const form = await (await fetch(`${base}/login`)).text();
      return fetch(`${base}/login`, {
        method: "POST",
        redirect: "manual",
        headers: FORM,
        body: new URLSearchParams({ form_token: tokenOf(form), secret }),
      });
    };
    const cookieOf = (response: Response): string => (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

    it("lets forms post only to itself, and only with a login; without one the dashboard has no form and no route that writes", async () => {
      const page = await fetch(`${base}/jobs/${SEEDED.exhausted}`);
      expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
      const text = await page.text();
      expect(text).toContain('href="/login"');
      expect(text).not.toContain('class="act"');

      const readOnly = createDashboardServer({ store });
      const url = await readOnly.listen({ port: 0, host: "127.0.0.1" });
      try {
        const plain = await fetch(`${url}/jobs/${SEEDED.exhausted}`);
        expect(plain.headers.get("content-security-policy")).toContain("form-action 'none'");
        expect(await plain.text()).toContain('<span class="viewer">read-only</span>');
        for (const path of ["/login", "/logout", `/jobs/${SEEDED.exhausted}/redrive`]) {
          expect((await fetch(`${url}${path}`, { method: "POST", headers: FORM, body: "a=1" })).status).toBe(404);
        }
      } finally {
        await readOnly.close();
      }
    });

    it("logs in with the token, shows the forms, and logs out: the cookie then opens nothing", async () => {
      const login = await logIn(TOKEN);
      expect(login.status).toBe(303);
      expect(login.headers.get("set-cookie")).toMatch(/^verq_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
      const cookie = cookieOf(login);
      const page = await (await fetch(`${base}/jobs/${SEEDED.exhausted}`, { headers: { cookie } })).text();
      expect(page).toContain('data-act="redrive"');
      expect(page).toContain("operator <code>token</code>");
      const logout = await fetch(`${base}/logout`, {
        method: "POST",
        redirect: "manual",
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ form_token: tokenOf(page, 'class="logout"') }),
      });
      expect(logout.status).toBe(303);
      expect(logout.headers.get("set-cookie")).toContain("Max-Age=0");
      const after = await (await fetch(`${base}/jobs/${SEEDED.exhausted}`, { headers: { cookie } })).text();
      expect(after).not.toContain('data-act="redrive"');
      const act = await fetch(`${base}/jobs/${SEEDED.exhausted}/redrive`, {
        method: "POST",
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ form_token: tokenOf(page, 'data-act="redrive"'), note: "OPS-1", version: "1" }),
      });
      expect(act.status).toBe(401);
      expect((await new JobQueue(store).get(SEEDED.exhausted))?.state).toBe("dead");
    });

    it("refuses a logout without the page's token, or from another site's page: the session lives on", async () => {
      const cookie = cookieOf(await logIn(TOKEN));
      const page = await (await fetch(`${base}/jobs/${SEEDED.exhausted}`, { headers: { cookie } })).text();
      const logOut = (token: string, headers: Record<string, string> = {}) =>
        fetch(`${base}/logout`, {
          method: "POST",
          redirect: "manual",
          headers: { ...FORM, cookie, ...headers },
          body: new URLSearchParams({ form_token: token }),
        });
      const refusals = [
        { response: await logOut("x.y"), status: 403, code: "VERQ_FORBIDDEN" },
        {
          response: await logOut(tokenOf(page, 'class="logout"'), { "sec-fetch-site": "cross-site" }),
          status: 403,
          code: "VERQ_FORBIDDEN",
        },
      ];
      for (const { response, status, code } of refusals) {
        expect(response.status).toBe(status);
        expect(await response.text()).toContain(code);
        expect(response.headers.get("set-cookie")).toBeNull();
      }
      const after = await (await fetch(`${base}/jobs/${SEEDED.exhausted}`, { headers: { cookie } })).text();
      expect(after).toContain('data-act="redrive"');
    });

    it("refuses logins from an address after five failures, even a right one, and logs no secret or note", async () => {
      const events = (await readAllEvents(store.db)).length;
      for (let i = 0; i < 5; i++) expect((await logIn(`wrong-${i}-0123456789abcdef`)).status).toBe(401);
      const throttled = await logIn(TOKEN);
      expect(throttled.status).toBe(429);
      expect(await throttled.text()).toContain("VERQ_LOGIN_THROTTLED");
      expect(throttled.headers.get("set-cookie")).toBeNull();
      expect((await readAllEvents(store.db)).length).toBe(events);
      const log = logLines.join("\n");
      expect(log).toContain("/login");
      expect(log).not.toContain(TOKEN);
      expect(log).not.toContain("wrong-0");
    });

    it("refuses a form body over 16 KiB without reading it", async () => {
      const response = await fetch(`${base}/login`, { method: "POST", headers: FORM, body: `secret=${"x".repeat(20_000)}` });
      expect(response.status).toBe(413);
    });
  });
}
