import type { Page } from "playwright-core";
import { it } from "vitest";
import { DRAWN_MACHINES } from "../../src/dashboard/drawn-machines.ts";
import { WIDE, describeOnEngines, docsPicture, takesScreenshots, watchedPage } from "./support/browser-fixture.ts";
import { SCRIPT_ID, SEEDED } from "./support/seed-dashboard.ts";
import { LISTED, seedLists } from "./support/seed-lists.ts";
import { seedTickets } from "./support/seed-streams.ts";

/*
 * O1: the listings and the overview's diagrams in a real headless Chromium (the one inside the
 * @sparticuz/chromium devDependency, or VERQ_CHROMIUM; driven by playwright-core), served by the
 * real `verq dashboard` process on a seeded database of each engine. Each page loads with no
 * request leaving 127.0.0.1, no Content-Security-Policy violation and no script; on every drawn
 * machine no two transition labels, as the browser lays out their text, overlap.
 */

/** The pictures of the listings in docs/operations.md, by the path they show. */
const SCREENSHOTS: Readonly<Record<string, string>> = Object.fromEntries(
  ["jobs", "queues", "schedules"].map((name) => [name, docsPicture(`dashboard-${name}.png`)]),
);

/** A drawn machine's transition labels as the browser laid them out. */
interface Figure {
  readonly name: string;
  readonly labels: readonly { arrow: string; left: number; top: number; right: number; bottom: number }[];
}

/** The `data-job` of each row of the jobs table. */
async function jobRows(page: Page): Promise<(string | null)[]> {
  const rows = page.locator("#jobs-table tbody tr");
  const ids: (string | null)[] = [];
  for (let i = 0; i < (await rows.count()); i++) ids.push(await rows.nth(i).getAttribute("data-job"));
  return ids;
}

await describeOnEngines(
  "the listings and diagrams in headless Chromium",
  {
    name: "dashboard-pages.sqlite",
    seed: async (store) => {
      await seedLists(store);
      await seedTickets(store);
    },
    ticketStreams: true,
  },
  (live) => {
    it("/jobs, /queues, /schedules and /ledger load with their seeded rows, styled, with no CSP violation and no script", async ({
      expect,
    }) => {
      const { context, page, problems } = await watchedPage(live.browser, WIDE);
      const expectations: [string, string, number][] = [
        ["jobs", "#jobs-table tbody tr", 50],
        ["jobs?state=dead", "#jobs-table tbody tr", 50],
        ["queues", "#queues-table tbody tr", 2],
        ["schedules", "#schedules-table tbody tr", 2],
        ["ledger", "#ledger-table tbody tr", 50],
      ];
      for (const [path, rows, count] of expectations) {
        const response = await page.goto(`${live.dashboard.url}${path}`, { waitUntil: "load" });
        expect(response?.status(), path).toBe(200);
        expect(await page.locator(rows).count(), path).toBe(count);
        expect(await page.locator(rows).first().isVisible(), path).toBe(true);
        expect(await page.evaluate<number>("document.scripts.length"), path).toBe(0);
        expect(await page.evaluate<string>("getComputedStyle(document.querySelector('header')).backgroundColor"), path).toBe(
          "rgb(29, 35, 43)",
        );
        expect(await page.locator("nav#nav a").allTextContents(), path).toEqual([
          "Overview",
          "Jobs",
          "Queues",
          "Schedules",
          "Ledger",
        ]);
        // With VERQ_SCREENSHOT=1, the listings' pictures in docs/ are made again (from one engine).
        const picture = SCREENSHOTS[path];
        if (takesScreenshots(live.engine) && picture !== undefined) await page.screenshot({ path: picture, fullPage: true });
      }
      expect(await page.locator(`#schedules-table tr[data-schedule="${LISTED.nightly}"] td[data-col="last"]`).count()).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    });

    it("from the overview a dead reason leads to its jobs, the next page to more, and a job's id to its timeline and back", async ({
      expect,
    }) => {
      const { context, page, problems } = await watchedPage(live.browser, WIDE);
      await page.goto(live.dashboard.url, { waitUntil: "load" });
      await page.locator('#dead-by-reason a[data-reason="permanent"]').click();
      await page.waitForURL("**/jobs?state=dead&reason=permanent");
      const first = await jobRows(page);
      expect(first).toHaveLength(50);
      await page.locator("#next-page").click();
      await page.waitForURL("**/jobs?state=dead&reason=permanent&after=*");
      const second = await jobRows(page);
      expect(second.length).toBeGreaterThan(0);
      expect(second.filter((id) => first.includes(id))).toEqual([]);
      expect([...first, ...second]).toContain(SEEDED.claimedTwice);
      await page.goto(`${live.dashboard.url}jobs?state=dead&reason=exhausted`, { waitUntil: "load" });
      expect(await page.locator("#jobs-table").textContent()).toContain(SCRIPT_ID);
      await page.locator(`#jobs-table tr[data-job="${SEEDED.exhausted}"] a`).first().click();
      await page.waitForURL(`**/jobs/${SEEDED.exhausted}`);
      await page.locator("#back-to-jobs").click();
      await page.waitForURL("**/jobs");
      expect(await page.evaluate<number>("document.scripts.length")).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    });

    it("on every drawn machine, no two transition labels overlap as the browser lays them out", async ({ expect }) => {
      const { context, page, problems } = await watchedPage(live.browser, WIDE);
      await page.goto(live.dashboard.url, { waitUntil: "load" });
      // One label per transition: each line of an arrow's label is its own <tspan>. Read as an
      // expression (the tests compile without the DOM's types), in the page's own coordinates.
      const figures = await page.evaluate<Figure[]>(`[...document.querySelectorAll("figure.machine")].map((figure) => ({
      name: figure.getAttribute("data-machine") ?? figure.getAttribute("data-stream-type") ?? "?",
      labels: [...figure.querySelectorAll("g.transition text.transition-label tspan")].map((line) => {
        const box = line.getBoundingClientRect();
        const g = line.closest("g.transition");
        return {
          arrow: g.getAttribute("data-source") + " -> " + g.getAttribute("data-target") + ": " + line.textContent,
          left: box.left, top: box.top, right: box.right, bottom: box.bottom,
        };
      }),
    }))`);
      // Every machine the overview draws, and the declared ticket type.
      expect(figures.map((f) => f.name)).toEqual(expect.arrayContaining([...DRAWN_MACHINES, "ticket"]));
      for (const { name, labels } of figures) {
        expect(labels.length, name).toBeGreaterThan(0);
        for (const label of labels) expect(label.right - label.left, `${name} ${label.arrow} is drawn`).toBeGreaterThan(0);
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++) {
            const [a, b] = [labels[i]!, labels[j]!];
            const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
            expect(apart, `${name}: the labels of ${a.arrow} and ${b.arrow} overlap: ${JSON.stringify([a, b])}`).toBe(true);
          }
      }
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
