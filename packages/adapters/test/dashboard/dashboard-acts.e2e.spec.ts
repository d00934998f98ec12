import { chmodSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { JobQueue, readAllEvents } from "@verq/store";
import { tempDir, type TestDatabase } from "@verq/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, it } from "vitest";
import { describeOnEngines, docsPicture, takesScreenshots, watchedPage } from "./support/browser-fixture.ts";
import { SEEDED, seedDashboard } from "./support/seed-dashboard.ts";

/*
 * O2: operators act from the dashboard, in a real headless Chromium against the real
 * `verq dashboard` process started with a credentials file, on each engine: log in, find a dead
 * job, redrive it with a ticket, see its new state and the audit event; and every attack tried
 * (no session, wrong password, a bad note, a forged token, a replayed form, a page drawn before
 * the job moved on, a form on another site's page) gets its code and changes nothing in the store.
 * No page of these tests makes a request off 127.0.0.1, breaks its CSP or opens a dialog.
 */

const USER = "ops";
const JOB_SCREENSHOT = docsPicture("dashboard-job.png");
/** A pending job of a queue of its own, which the test's worker claims while its page is open. */
const STALE = { id: "stale-1", queue: "acts" };
const PASSWORD = "a-long-enough-password-42";

let attacker: Server;
let attackerUrl: string;
let authDir: ReturnType<typeof tempDir> | undefined;
let authFile: string;

/** What the store holds of one job: its state and version, and how many events the log has. */
async function jobNow(
  database: TestDatabase,
  id: string,
): Promise<{ state: string | undefined; version: number | undefined; events: number }> {
  const store = await database.open();
  try {
    const job = await new JobQueue(store).get(id);
    return { state: job?.state, version: job?.version, events: (await readAllEvents(store.db)).length };
  } finally {
    await store.close();
  }
}

/** The page's refusal: its HTTP status and the code it names. */
async function refusal(page: Page, status: number | undefined): Promise<{ status: number | undefined; code: string | null }> {
  return { status, code: await page.locator("#problem code").first().textContent() };
}

/** Logs in on `page` at the dashboard `url` (its cookie is its context's). */
async function logIn(url: string, page: Page, password = PASSWORD): Promise<void> {
  await page.goto(`${url}login`);
  await page.fill('input[name="user"]', USER);
  await page.fill('input[name="secret"]', password);
  await page.click('#login button[type="submit"]');
}

beforeAll(async () => {
  authDir = tempDir("verq-dashboard-auth-");
  authFile = join(authDir.path, "dashboard.auth");
  writeFileSync(authFile, `user=${USER}\npassword=${PASSWORD}\n`);
  chmodSync(authFile, 0o600);
  attacker = createServer((request, response) => {
    // Another site's page: a form aimed at the dashboard, whose token the attacker took from a real page.
    const target = new URL(request.url ?? "/", "http://x").searchParams;
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<!doctype html><form method="post" action="${target.get("action") ?? ""}">
      <input type="hidden" name="form_token" value="${target.get("token") ?? ""}">
      <input type="hidden" name="version" value="${target.get("version") ?? ""}">
      <input type="hidden" name="note" value="EVIL-1"><button type="submit">win a prize</button></form>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  authDir?.remove();
  await new Promise((resolve) => attacker?.close(resolve));
});

await describeOnEngines(
  "operators act from the dashboard in headless Chromium",
  {
    name: "dashboard-acts.sqlite",
    seed: async (store) => {
      await seedDashboard(store);
      await new JobQueue(store).enqueue({ id: STALE.id, queue: STALE.queue, payload: { n: 1 } });
    },
    args: () => ["--auth-file", authFile],
  },
  (live) => {
    const now = (id: string) => jobNow(live.database, id);
    it("shows no act without a session, and refuses one posted without it", async ({ expect }) => {
      const { context, page, problems } = await watchedPage(live.browser);
      await page.goto(`${live.dashboard.url}jobs/${SEEDED.exhausted}`);
      expect(await page.locator("form.act").count()).toBe(0);
      expect(await page.locator(`a[href$="/login"]`).count()).toBeGreaterThan(0);
      const before = await now(SEEDED.exhausted);
      const response = await context.request.post(`${live.dashboard.url}jobs/${SEEDED.exhausted}/redrive`, {
        form: { note: "OPS-1", version: String(before.version), form_token: "x.y" },
      });
      expect(response.status()).toBe(401);
      expect(await response.text()).toContain("VERQ_UNAUTHENTICATED");
      expect(await now(SEEDED.exhausted)).toEqual(before);
      expect(problems).toEqual([]);
      await context.close();
    });

    it("refuses a wrong password and sets no cookie; a right one sets an HttpOnly, SameSite=Strict session cookie", async ({
      expect,
    }) => {
      const { context, page, problems } = await watchedPage(live.browser);
      await logIn(live.dashboard.url, page, "not-the-password-at-all");
      expect(await page.locator("#login .refused").getAttribute("data-code")).toBe("VERQ_UNAUTHENTICATED");
      expect(await context.cookies()).toEqual([]);
      await logIn(live.dashboard.url, page);
      expect(new URL(page.url()).pathname).toBe("/");
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: "verq_session", httpOnly: true, sameSite: "Strict", path: "/" });
      expect(problems).toEqual([]);
      await context.close();
    });

    it("logs in, finds the dead job, redrives it with a ticket, and shows its new state and the audit event", async ({
      expect,
    }) => {
      const { context, page, problems } = await watchedPage(live.browser);
      await logIn(live.dashboard.url, page);
      await page.goto(`${live.dashboard.url}jobs/${SEEDED.exhausted}`);
      // With VERQ_SCREENSHOT=1, the picture of a job's page with its acts in docs/ is made again.
      if (takesScreenshots(live.engine)) await page.screenshot({ path: JOB_SCREENSHOT, fullPage: true });
      const acts = await Promise.all((await page.locator("form.act").all()).map((form) => form.getAttribute("data-act")));
      expect(acts).toEqual(["redrive"]);
      await page.fill('form[data-act="redrive"] input[name="note"]', "OPS-4711");
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().includes("/redrive")),
        page.click('form[data-act="redrive"] button[type="submit"]'),
      ]);
      expect(response.status()).toBe(303);
      await page.waitForURL(/acted=redrive/);
      expect(await page.locator("#job h2 .badge").textContent()).toBe("pending");
      const acted = page.locator('tr[data-acted="true"]');
      expect(await acted.getAttribute("data-type")).toBe("job.redriven");
      expect(await acted.textContent()).toContain("OPS-4711");
      expect((await now(SEEDED.exhausted)).state).toBe("pending");
      expect(problems).toEqual([]);
      await context.close();
    });

    it("refuses a note that is not a ticket id, a forged token and a replayed form, changing nothing", async ({ expect }) => {
      const { context, page, problems } = await watchedPage(live.browser);
      await logIn(live.dashboard.url, page);
      await page.goto(`${live.dashboard.url}jobs/${SEEDED.claimedTwice}`);
      const form = page.locator('form[data-act="redrive"]');
      const before = await now(SEEDED.claimedTwice);

      // A note the browser would stop: the server refuses it as well.
      await form
        .locator('input[name="note"]')
        .evaluate((input: { removeAttribute(name: string): void }) => input.removeAttribute("pattern"));
      await form.locator('input[name="note"]').fill("fixed-it!");
      const [bad] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        form.locator("button").click(),
      ]);
      expect(await refusal(page, bad.status())).toEqual({ status: 400, code: "VERQ_INVALID_NOTE" });
      expect(await now(SEEDED.claimedTwice)).toEqual(before);

      // The token of that form was used up by the refused attempt: sending it again is a replay.
      await page.goBack();
      await page.reload();
      const fields = {
        form_token: (await page.locator('form[data-act="redrive"] input[name="form_token"]').inputValue()) ?? "",
        version: (await page.locator('form[data-act="redrive"] input[name="version"]').inputValue()) ?? "",
        note: "OPS-5",
      };
      const forged = await context.request.post(`${live.dashboard.url}jobs/${SEEDED.claimedTwice}/redrive`, {
        form: { ...fields, form_token: `${fields.form_token.split(".")[0]}.forged` },
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain("VERQ_FORBIDDEN");
      expect(await now(SEEDED.claimedTwice)).toEqual(before);

      const first = await context.request.post(`${live.dashboard.url}jobs/${SEEDED.claimedTwice}/redrive`, {
        form: fields,
        maxRedirects: 0,
      });
      expect(first.status()).toBe(303);
      const after = await now(SEEDED.claimedTwice);
      expect(after.state).toBe("pending");
      const replayed = await context.request.post(`${live.dashboard.url}jobs/${SEEDED.claimedTwice}/redrive`, { form: fields });
      expect(replayed.status()).toBe(409);
      expect(await replayed.text()).toContain("VERQ_FORM_USED");
      expect(await now(SEEDED.claimedTwice)).toEqual(after);
      expect(problems).toEqual([]);
      await context.close();
    });

    it("refuses a cancel drawn before the job moved on, and a form on another site's page", async ({ expect }) => {
      const { context, page, problems } = await watchedPage(live.browser);
      await logIn(live.dashboard.url, page);
      await page.goto(`${live.dashboard.url}jobs/${STALE.id}`);
      expect(await page.locator("form.act").getAttribute("data-act")).toBe("cancel");

      // Meanwhile a worker claims the job: the page the operator sees is out of date.
      const store = await live.database.open();
      try {
        const claimed = await new JobQueue(store).claim("worker-z", { leaseMs: 600_000, queues: [STALE.queue] });
        expect(claimed?.id).toBe(STALE.id);
      } finally {
        await store.close();
      }
      const before = await now(STALE.id);
      await page.fill('form[data-act="cancel"] input[name="note"]', "OPS-6");
      const [stale] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.click('form[data-act="cancel"] button'),
      ]);
      expect(await refusal(page, stale.status())).toEqual({ status: 409, code: "VERQ_JOB_CHANGED" });
      expect(await now(STALE.id)).toEqual(before);

      // Another site (another port of 127.0.0.1) posts a form with a real token to the dashboard.
      await page.goto(`${live.dashboard.url}jobs/${STALE.id}`);
      const token = await page.locator('form[data-act="cancel"] input[name="form_token"]').inputValue();
      const params = new URLSearchParams({
        action: `${live.dashboard.url}jobs/${STALE.id}/cancel`,
        token,
        version: String(before.version),
      });
      await page.goto(`${attackerUrl}?${params.toString()}`);
      const [crossSite] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.click("button")]);
      expect(crossSite.status()).toBe(403);
      expect(await page.locator("#problem code").first().textContent()).toBe("VERQ_FORBIDDEN");
      expect(await now(STALE.id)).toEqual(before);
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
