import { BULK_REDRIVE_LOCK, type Job } from "@verq/core";
import { JobQueue, OperatorLocks, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCRIPT_ID, SEEDED } from "./support/seed-dashboard.ts";
import { FORM } from "./support/act-session.ts";
import { seededWithLogin, serveDashboard, type ServedDashboard } from "./support/served-dashboard.ts";

/*
 * O2 over real HTTP on both engines: a bulk redrive of the dead jobs a listing shows, started
 * from the dashboard, runs as `verq jobs redrive --all` does: under the store's one bulk-redrive
 * lock, at the pace asked, each redrive audited with the ticket, and only the jobs dead when the
 * page was drawn. Bad input and a lock held elsewhere change nothing.
 */

const DEAD = [SEEDED.claimedTwice, SEEDED.exhausted, SCRIPT_ID].sort();

const fieldOf = (page: string, form: string, name: string): string =>
  new RegExp(`${form}[\\s\\S]*?name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dashboard's bulk redrive`, () => {
    let served: ServedDashboard;
    let store: VerqStore;
    let base: string;
    let cookie: string;

    beforeEach(async () => {
      served = await serveDashboard(engine, "dashboard-bulk.sqlite", seededWithLogin, { logIn: true });
      ({ store, base, cookie } = served);
    });
    afterEach(() => served.close());

    const listing = async (query = "state=dead") =>
      (await (await fetch(`${base}/jobs?${query}`, { headers: { cookie } })).text()).replace(/\s+/g, " ");
    const submit = (page: string, fields: Record<string, string>) =>
      fetch(`${base}/jobs/redrive-dead`, {
        method: "POST",
        redirect: "manual",
        headers: { ...FORM, cookie },
        body: new URLSearchParams({
          form_token: fieldOf(page, 'data-act="redrive-dead"', "form_token"),
          drawn_at: fieldOf(page, 'data-act="redrive-dead"', "drawn_at"),
          ...fields,
        }),
      });
    const jobs = async (): Promise<Job[]> => {
      const queue = new JobQueue(store);
      return Promise.all(DEAD.map(async (id) => (await queue.get(id)) as Job));
    };
    async function finished(): Promise<string> {
      for (let i = 0; i < 200; i++) {
        const page = await (await fetch(`${base}/bulk`, { headers: { cookie } })).text();
        if (!page.includes('data-state="running"')) return page;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error("the bulk redrive did not end");
    }

    it("offers the form only to a session, on dead jobs filtered by reason alone, with how many it takes", async () => {
      const page = await listing();
      expect(page).toContain('data-act="redrive-dead"');
      expect(page).toMatch(/Redrive 3 dead jobs \(all but the cancelled ones\)/);
      expect(await listing("state=dead&reason=permanent")).toMatch(/Redrive 1 dead job </);
      expect(await listing("state=dead&queue=default")).not.toContain('data-act="redrive-dead"');
      expect(await listing("state=pending")).not.toContain('data-act="redrive-dead"');
      const anonymous = await (await fetch(`${base}/jobs?state=dead`)).text();
      expect(anonymous).not.toContain('data-act="redrive-dead"');
    });

    it("redrives every job dead when the page was drawn, each audited with the ticket, and none that died after", async () => {
      const page = await listing();
      // A job that dies after the page was drawn is not among those the operator saw.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const queue = new JobQueue(store);
      await queue.enqueue({ id: "late-1", queue: "late", payload: {}, maxAttempts: 1 });
      const late = await queue.claim("w", { queues: ["late"] });
      expect(late?.id).toBe("late-1");
      await queue.finish("late-1", late?.token ?? 0, "permanent");

      const response = await submit(page, { note: "OPS-77", rate: "100/s" });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/bulk");
      const report = await finished();
      expect(report).toContain('data-state="done"');
      expect(report).toContain('data-count="redriven">3<');
      expect((await jobs()).map((job) => job.state)).toEqual(["pending", "pending", "pending"]);
      expect((await queue.get("late-1"))?.state).toBe("dead");
      const audit = (await readAllEvents(store.db)).filter((e) => e.type === "job.redriven" && DEAD.includes(e.streamId));
      expect(audit.map((e) => (e.data as { note: string }).note)).toEqual(["OPS-77", "OPS-77", "OPS-77"]);
      // The lock is released: another run may begin.
      expect((await new OperatorLocks(store).acquire(BULK_REDRIVE_LOCK, "cli", 30_000)).acquired).toBe(true);
    });

    it("refuses a bad note, a bad pace, a forged form and a lock held elsewhere, changing nothing", async () => {
      const events = (await readAllEvents(store.db)).length;
      const expectRefused = async (response: Response, status: number, code: string, back?: string) => {
        expect(response.status).toBe(status);
        const text = await response.text();
        expect(text).toContain(code);
        if (back !== undefined) expect(text).toContain(`id="problem-back" href="${back}"`);
        expect((await readAllEvents(store.db)).length).toBe(events);
        expect((await jobs()).map((job) => job.state)).toEqual(["dead", "dead", "dead"]);
      };
      await expectRefused(
        await submit(await listing(), { note: "fixed it", rate: "10/s" }),
        400,
        "VERQ_INVALID_NOTE",
        "/jobs?state=dead",
      );
      await expectRefused(await submit(await listing(), { note: "OPS-1", rate: "fast" }), 400, "VERQ_INVALID_ARGUMENT");
      await expectRefused(
        await submit(await listing(), { note: "OPS-1", rate: "10/s", reason: "bored" }),
        400,
        "VERQ_INVALID_ARGUMENT",
        "/jobs?state=dead&amp;reason=bored",
      );
      const page = await listing();
      const forged = await fetch(`${base}/jobs/redrive-dead`, {
        method: "POST",
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ form_token: "x.y", drawn_at: "1", note: "OPS-1", rate: "10/s" }),
      });
      await expectRefused(forged, 403, "VERQ_FORBIDDEN");
      // Stopping needs the page's token as well; there is no run to stop, and nothing changes.
      await expectRefused(
        await fetch(`${base}/bulk/stop`, { method: "POST", headers: { ...FORM, cookie }, body: "form_token=x.y" }),
        403,
        "VERQ_FORBIDDEN",
      );
      const held = await new OperatorLocks(store).acquire(BULK_REDRIVE_LOCK, "cli-run", 60_000);
      expect(held.acquired).toBe(true);
      const locked = await submit(page, { note: "OPS-1", rate: "10/s" });
      expect(locked.status).toBe(409);
      const text = await locked.text();
      expect(text).toContain("VERQ_BULK_RUNNING");
      expect(text).toContain('id="problem-back" href="/jobs?state=dead"');
      expect((await jobs()).map((job) => job.state)).toEqual(["dead", "dead", "dead"]);
    });
  });
}
