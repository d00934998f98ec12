import { fingerprintRequest } from "@verq/core";
import { GuidLedger } from "@verq/store";
import { TestCore, type Engine, type TestDatabase } from "@verq/testing";
import { afterAll, beforeAll, it } from "vitest";
import { describeOnEngines, watchedPage } from "./support/browser-fixture.ts";

/*
 * An operator sends a FAILED ledger entry again from its page, in a real headless Chromium
 * against the real `verq dashboard --core URL` process on each engine and a real test core: the
 * entry ends DONE, the core processed it once, and the page marks the event the act ended with.
 */

const TOKEN = "operator-token-0123456789";
/** Each engine's entry: the engines share the test core, whose bank records requests by GUID. */
const guidOf = (engine: Engine): string => `E2E-LEDGER-${engine.toUpperCase()}`;
const requestOf = (engine: Engine): string => JSON.stringify({ guid: guidOf(engine), amount: 12 });

let core: TestCore;

/** The entry as the store holds it now. */
async function entryNow(
  database: TestDatabase,
  guid: string,
): Promise<{ state: string | undefined; attempts: number | undefined }> {
  const store = await database.open();
  try {
    const entry = await new GuidLedger(store).get(guid);
    return { state: entry?.state, attempts: entry?.attempts };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  core = await TestCore.start();
});

afterAll(async () => {
  await core?.close();
});

await describeOnEngines(
  "operators act on the ledger from the dashboard in headless Chromium",
  {
    name: "dashboard-ledger-acts.sqlite",
    seed: async (store, engine) => {
      const [guid, request] = [guidOf(engine), requestOf(engine)];
      const ledger = new GuidLedger(store);
      await ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
      await ledger.send(guid);
      await ledger.record(guid, 1, { kind: "not-sent" });
    },
    args: () => ["--core", core.url, "--core-timeout", "5s"],
    env: { VERQ_DASHBOARD_TOKEN: TOKEN },
  },
  (live) => {
    it("sends a FAILED entry again: DONE, processed once by the core, the act's event marked", async ({ expect }) => {
      const [guid, request] = [guidOf(live.engine), requestOf(live.engine)];
      expect(await entryNow(live.database, guid)).toEqual({ state: "FAILED", attempts: 1 });
      const { context, page, problems } = await watchedPage(live.browser);
      await page.goto(`${live.dashboard.url}ledger/${guid}`);
      expect(await page.locator("form.act").count()).toBe(0);
      await page.goto(`${live.dashboard.url}login`);
      await page.fill('input[name="secret"]', TOKEN);
      await page.click('#login button[type="submit"]');
      await page.goto(`${live.dashboard.url}ledger/${guid}`);
      await page.click('form.act[data-act="reprocess"] button[type="submit"]');
      const url = new URL(page.url());
      expect(`${url.pathname}${url.search}${url.hash}`).toBe(`/ledger/${guid}?acted=reprocess#acted`);
      expect(await page.locator("#entry h2 .badge").textContent()).toBe("DONE");
      expect(await page.locator("#acted").getAttribute("data-type")).toBe("guid.done");
      expect(await page.locator("form.act").count()).toBe(0);
      expect(await entryNow(live.database, guid)).toEqual({ state: "DONE", attempts: 2 });
      expect(core.bank.requests(guid)).toEqual([request]);
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
