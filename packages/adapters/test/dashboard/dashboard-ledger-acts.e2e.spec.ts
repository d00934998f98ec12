import { fingerprintRequest } from "@verq/core";
import { GuidLedger } from "@verq/store";
import { TestCore, createTestDatabase, type TestDatabase } from "@verq/testing";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "./support/find-chromium.ts";
import { startDashboard, type RunningDashboard } from "./support/start-dashboard.ts";

/*
 * An operator sends a FAILED ledger entry again from its page, in a real headless Chromium
 * against the real `verq dashboard --core URL` process and a real test core: the entry ends DONE,
 * the core processed it once, and the page marks the event the act ended with.
 */

const TOKEN = "operator-token-0123456789";
const GUID = "E2E-LEDGER-1";
const REQUEST = JSON.stringify({ guid: GUID, amount: 12 });

let database: TestDatabase;
let core: TestCore;
let dashboard: RunningDashboard;
let browser: Browser;

/** The entry as the store holds it now. */
async function entryNow(): Promise<{ state: string | undefined; attempts: number | undefined }> {
  const store = await database.open();
  try {
    const entry = await new GuidLedger(store).get(GUID);
    return { state: entry?.state, attempts: entry?.attempts };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  const executablePath = await findChromium();
  database = await createTestDatabase("sqlite", "dashboard-ledger-acts.sqlite");
  const store = await database.open();
  try {
    const ledger = new GuidLedger(store);
    await ledger.receive({ guid: GUID, request: REQUEST, fingerprint: fingerprintRequest(JSON.parse(REQUEST)), maxAttempts: 5 });
    await ledger.send(GUID);
    await ledger.record(GUID, 1, { kind: "not-sent" });
  } finally {
    await store.close();
  }
  core = await TestCore.start();
  [dashboard, browser] = await Promise.all([
    startDashboard(["--db", database.db, "--port", "0", "--core", core.url, "--core-timeout", "5s"], {
      VERQ_DASHBOARD_TOKEN: TOKEN,
    }),
    chromium.launch({ executablePath, headless: true }),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  await core?.close();
  await database?.dispose();
});

describe("operators act on the ledger from the dashboard in headless Chromium", () => {
  it("sends a FAILED entry again: DONE, processed once by the core, the act's event marked", async () => {
    expect(await entryNow()).toEqual({ state: "FAILED", attempts: 1 });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${dashboard.url}ledger/${GUID}`);
    expect(await page.locator("form.act").count()).toBe(0);
    await page.goto(`${dashboard.url}login`);
    await page.fill('input[name="secret"]', TOKEN);
    await page.click('#login button[type="submit"]');
    await page.goto(`${dashboard.url}ledger/${GUID}`);
    await page.click('form.act[data-act="reprocess"] button[type="submit"]');
    const url = new URL(page.url());
    expect(`${url.pathname}${url.search}${url.hash}`).toBe(`/ledger/${GUID}?acted=reprocess#acted`);
    expect(await page.locator("#entry h2 .badge").textContent()).toBe("DONE");
    expect(await page.locator("#acted").getAttribute("data-type")).toBe("guid.done");
    expect(await page.locator("form.act").count()).toBe(0);
    expect(await entryNow()).toEqual({ state: "DONE", attempts: 2 });
    expect(core.bank.requests(GUID)).toEqual([REQUEST]);
    await context.close();
  });
});
