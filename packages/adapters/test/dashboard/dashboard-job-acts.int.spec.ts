import { JobQueue, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "./support/seed-dashboard.ts";
import { codeOf, FORM, tokenOf } from "./support/act-session.ts";
import { seededWithLogin, serveDashboard, type ServedDashboard } from "./support/served-dashboard.ts";

/*
 * The job acts over real HTTP on 127.0.0.1, on both engines: a redrive or cancel goes through the
 * login's checks and the job machine, with the job's version as the page showed it. A job that
 * moved on since is the store's VERQ_JOB_CHANGED; a job the machine refuses as it is now is the
 * machine's own code; either way nothing changes.
 */

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dashboard's job acts`, () => {
    let served: ServedDashboard;
    let store: VerqStore;
    let queue: JobQueue;
    let base: string;
    let cookie: string;

    beforeEach(async () => {
      served = await serveDashboard(engine, "dashboard-job-acts.sqlite", seededWithLogin, { logIn: true });
      ({ store, base, cookie } = served);
      queue = new JobQueue(store);
    });
    afterEach(() => served.close());

    const jobPage = async (id: string): Promise<string> => (await fetch(`${base}/jobs/${id}`, { headers: { cookie } })).text();
    const post = (id: string, act: string, fields: Record<string, string>): Promise<Response> =>
      fetch(`${base}/jobs/${id}/${act}`, {
        method: "POST",
        redirect: "manual",
        headers: { ...FORM, cookie },
        body: new URLSearchParams(fields),
      });
    /** A form for `act` on `id` as the job is now, with a token of the page's own (its logout form's when it offers no act). */
    const formNow = async (id: string, act: string, note = "OPS-9"): Promise<Record<string, string>> => {
      const page = await jobPage(id);
      const form = page.includes(`data-act="${act}"`) ? `data-act="${act}"` : 'class="logout"';
      return { form_token: tokenOf(page, form), note, version: String((await queue.get(id))?.version) };
    };
    const eventCount = async (): Promise<number> => (await readAllEvents(store.db)).length;

    it("cancels a pending job with the ticket, and marks the event on its page", async () => {
      const sent = await post(SEEDED.redriven, "cancel", await formNow(SEEDED.redriven, "cancel"));
      expect(sent.status).toBe(303);
      expect(sent.headers.get("location")).toBe(`/jobs/${SEEDED.redriven}?acted=cancel#acted`);
      expect(await queue.get(SEEDED.redriven)).toMatchObject({ state: "dead", reason: "cancelled" });
      const cancelled = (await readAllEvents(store.db)).filter((e) => e.type === "job.cancelled");
      expect(cancelled.map((e) => [e.streamId, (e.data as { note: string }).note])).toEqual([[SEEDED.redriven, "OPS-9"]]);
    });

    it("refuses what the job machine refuses with its own code (409), a job moved on with VERQ_JOB_CHANGED, and a form without a version: nothing changed", async () => {
      const ids = [SEEDED.done, SEEDED.exhausted, SEEDED.redriven];
      const jobs = async () => Promise.all(ids.map((id) => queue.get(id)));
      const before = { events: await eventCount(), jobs: await jobs() };
      const refusals: { id: string; act: string; fields: Record<string, string>; status: number; code: string; says: string }[] =
        [
          // As the job is now: only the machine's rule refuses.
          { id: SEEDED.done, act: "cancel", fields: {}, status: 409, code: "VERQ_NOT_CANCELLABLE", says: "the job is done" },
          { id: SEEDED.exhausted, act: "cancel", fields: {}, status: 409, code: "VERQ_NOT_CANCELLABLE", says: "the job is dead" },
          { id: SEEDED.done, act: "redrive", fields: {}, status: 409, code: "VERQ_NOT_DEAD", says: "only a dead job" },
          // As the job was before its last event: the operator's view is out of date.
          {
            id: SEEDED.redriven,
            act: "cancel",
            fields: { version: "1" },
            status: 409,
            code: "VERQ_JOB_CHANGED",
            says: "as when it was read",
          },
          {
            id: SEEDED.exhausted,
            act: "redrive",
            fields: { version: "x" },
            status: 400,
            code: "VERQ_INVALID_ARGUMENT",
            says: "no version",
          },
          {
            id: SEEDED.exhausted,
            act: "redrive",
            fields: { note: "fixed it" },
            status: 400,
            code: "VERQ_INVALID_NOTE",
            says: "ticket id",
          },
        ];
      for (const { id, act, fields, status, code, says } of refusals) {
        const refused = await post(id, act, { ...(await formNow(id, act)), ...fields });
        const text = await refused.text();
        expect({ id, act, status: refused.status, code: codeOf(text) }).toEqual({ id, act, status, code });
        expect(text).toContain(says);
        expect(text).toContain(`id="problem-back" href="/jobs/${id}"`);
      }
      expect(await eventCount()).toBe(before.events);
      expect(await jobs()).toEqual(before.jobs);
    });
  });
}
