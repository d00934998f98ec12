import { machineGraph, VERQ_MACHINES } from "@verq/core";
import { ticketMachine } from "../../../core/test/ticket-stream.ts";
import { it } from "vitest";
import { DRAWN_MACHINES } from "../../src/dashboard/drawn-machines.ts";
import { WIDE, describeOnEngines, docsPicture, takesScreenshots, watchedPage } from "./support/browser-fixture.ts";
import { SCRIPT_ID, SEEDED, seedDashboard } from "./support/seed-dashboard.ts";
import { MARKUP_TICKET, MARKUP_TITLE, TICKETS, seedTickets } from "./support/seed-streams.ts";

/*
 * O1: the dashboard in a real headless Chromium (the one inside the @sparticuz/chromium
 * devDependency, or VERQ_CHROMIUM; driven by playwright-core), served by the real `verq dashboard`
 * process on a seeded database of each engine. Every request that is not to 127.0.0.1 is blocked
 * and recorded: the page must load without any. With VERQ_SCREENSHOT=1 the overview is saved to
 * docs/dashboard.png (from the SQLite run only).
 */

const SCREENSHOT = docsPicture("dashboard.png");

await describeOnEngines(
  "the dashboard in headless Chromium",
  {
    name: "dashboard.sqlite",
    seed: async (store) => {
      await seedDashboard(store);
      await seedTickets(store);
    },
    ticketStreams: true,
  },
  (live) => {
    it("loads offline, draws every state of every machine, lists a dead job with its kind, reason and last failure, shows the kinds, and /jobs/ID shows tokens 1 and 2 and the failures", async ({
      expect,
    }) => {
      // Requests off 127.0.0.1 are blocked, and recorded with CSP violations, errors and dialogs, as problems.
      const { context, page, problems, served } = await watchedPage(live.browser, WIDE);

      const response = await page.goto(live.dashboard.url, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      // The stylesheet came from the dashboard itself and applies.
      expect(served).toContain("/assets/dashboard.css");
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('header')).backgroundColor")).toBe(
        "rgb(29, 35, 43)",
      );

      // Every state of every machine, read from its definition, is a drawn node with its count.
      for (const name of DRAWN_MACHINES) {
        const graph = machineGraph(VERQ_MACHINES[name]);
        const figure = page.locator(`figure[data-machine="${name}"]`);
        await expect.poll(() => figure.locator("svg g.state").count()).toBe(graph.states.length);
        for (const state of graph.states) {
          const node = figure.locator(`svg g.state[data-state="${state}"]`);
          expect(await node.isVisible(), `${name}.${state} is drawn`).toBe(true);
          expect(await node.textContent()).toContain(state);
        }
        expect(await figure.locator("svg g.transition").count()).toBeGreaterThan(0);
      }
      for (const [state, count] of Object.entries(SEEDED.byState.job)) {
        expect(await page.locator(`figure[data-machine="job"] g.state[data-state="${state}"]`).getAttribute("data-count")).toBe(
          String(count),
        );
      }

      // A dead job with its kind, reason and last failure; the markup id is text, and no script ran.
      const row = page.locator(`#dead-letters tr[data-job="${SEEDED.claimedTwice}"]`);
      expect(await row.locator("td").allTextContents()).toEqual([
        expect.stringContaining(SEEDED.claimedTwice),
        "order.ship",
        "permanent",
        "HttpError",
        "2026-01-15T09:00:30.000Z",
        expect.stringMatching(/^\s*2\s*\/\s*3\s*$/),
        "2",
      ]);
      expect(await page.locator("#dead-letters").textContent()).toContain(SCRIPT_ID);
      expect(await page.evaluate<number>("document.scripts.length")).toBe(0);

      // The kinds, each with its jobs by state and its dead jobs by last failure class.
      const kinds = page.locator("#kinds-table tbody tr");
      const kindNames: (string | null)[] = [];
      for (let i = 0; i < (await kinds.count()); i++) kindNames.push(await kinds.nth(i).getAttribute("data-kind"));
      expect(kindNames).toEqual(Object.keys(SEEDED.kinds));
      for (const [kind, counts] of Object.entries(SEEDED.kinds)) {
        const cells = page.locator(`#kinds-table tr[data-kind="${kind}"] td.num`);
        expect(await cells.allTextContents(), kind).toEqual(counts.map(String));
      }
      expect(await page.locator('#kinds-table tr[data-kind="order.ship"] .badge').textContent()).toBe("HttpError 1");
      expect(await page.locator("#kinds-table").isVisible()).toBe(true);

      if (takesScreenshots(live.engine)) await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // From the dead-letter table to the job's timeline: both claims with their tokens and owners.
      await row.locator("a").click();
      await page.waitForURL(`**/jobs/${SEEDED.claimedTwice}`);
      const claims = page.locator('#timeline tr[data-type="job.claimed"]');
      expect(await claims.locator('td[data-col="token"]').allTextContents()).toEqual(["1", "2"]);
      expect(await claims.locator('td[data-col="owner"]').allTextContents()).toEqual(["worker-a", "worker-b"]);
      expect(await page.locator("#job-token").textContent()).toBe("2");
      // Its kind, its last failure, and the failure each failure-carrying event carries.
      expect(await page.locator("#job-kind").textContent()).toBe("order.ship");
      const last = page.locator("#job-last-failure .detail");
      expect((await last.allTextContents()).map((text) => text.replace(/\s+/g, " ").trim())).toEqual([
        "category=permanent",
        "class=HttpError",
        "code=—",
        "status=422",
        "attempt=2",
        "token=2",
        "at 2026-01-15T09:00:30.000Z",
      ]);
      const failed = page.locator('#timeline tr[data-type="job.failed"] .detail.failure');
      expect(await failed.allTextContents()).toEqual(["category=unexpected", "class=TypeError"]);
      expect(await page.locator('#timeline tr[data-type="job.failed"] td[data-col="token"]').textContent()).toBe("1");
      const died = page.locator('#timeline tr[data-type="job.died"] .detail.failure');
      expect(await died.allTextContents()).toEqual(["category=permanent", "class=HttpError", "status=422"]);
      expect(await died.first().isVisible()).toBe(true);
      expect(await page.locator("#payload").count()).toBe(0);

      // No dialog, no request blocked (nor CSP violation nor error).
      expect(problems).toEqual([]);
      await context.close();
    });

    it("draws the declared ticket machine with every state's count, and a ticket's link leads to its timeline with the markup title as text", async ({
      expect,
    }) => {
      const { context, page, problems } = await watchedPage(live.browser, WIDE);
      expect((await page.goto(live.dashboard.url, { waitUntil: "load" }))?.status()).toBe(200);
      const figure = page.locator('figure[data-stream-type="ticket"]');
      const states = machineGraph(ticketMachine).states;
      await expect.poll(() => figure.locator("svg g.state").count()).toBe(states.length);
      for (const state of states) {
        const node = figure.locator(`svg g.state[data-state="${state}"]`);
        expect(await node.isVisible(), `ticket.${state} is drawn`).toBe(true);
        expect(await node.getAttribute("data-count")).toBe(String(TICKETS.byState[state as keyof typeof TICKETS.byState]));
      }

      // The markup ticket's link, its id shown as text, leads to its page; its title is text and no script ran.
      const link = page.locator('table[data-stream-type="ticket"] a', { hasText: MARKUP_TICKET });
      expect(await link.textContent()).toBe(MARKUP_TICKET);
      await link.click();
      await page.waitForURL("**/streams/ticket/**");
      expect(await page.locator("#stream-state").textContent()).toBe("open");
      const title = page.locator('#timeline tr[data-type="ticket.opened"] .detail[data-key="title"] code');
      expect(await title.textContent()).toBe(MARKUP_TITLE);
      expect(await title.isVisible()).toBe(true);
      expect(await page.evaluate<number>("document.scripts.length")).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
