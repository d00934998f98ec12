import { ManualClock, fingerprintRequest, type CoreOutcome } from "@verq/core";
import { GuidLedger, type VerqStore } from "@verq/store";
import { ENGINES, TestCore, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDashboardServer } from "../../src/dashboard/dashboard-server.ts";
import { createHttpCoreClient } from "../../src/relay/http-core-client.ts";
import { codeOf, FORM, logIn, TOKEN_AUTH, tokenOf, versionOf } from "./support/act-session.ts";

/*
 * The ledger acts over real HTTP on 127.0.0.1, on both engines, in front of a real test core
 * (`POST /transfer`, `GET /transfer/{guid}`): an UNKNOWN entry settled by the core's inquiry, a
 * FAILED one sent again, each only with a session, a one-time form token and the entry's version
 * as the page showed it; a refused form changes nothing.
 */

const MIN_AGE = 60_000;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dashboard's ledger acts`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let ledger: GuidLedger;
    let core: TestCore;
    let app: FastifyInstance;
    let base: string;
    let cookie: string;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "dashboard-ledger-acts.sqlite");
      store = await database.open();
      clock = new ManualClock(1_767_258_000_000);
      ledger = new GuidLedger(store, { clock });
      core = await TestCore.start();
      const client = createHttpCoreClient({ url: core.url, timeoutMs: 2_000 });
      app = createDashboardServer({
        store,
        clock,
        auth: TOKEN_AUTH,
        core: { client, minAgeMs: MIN_AGE, maxAttempts: 3 },
      });
      base = await app.listen({ port: 0, host: "127.0.0.1" });
      cookie = await logIn(base);
    });
    afterEach(async () => {
      await app.close();
      await core.close();
      await store.close();
      await database.dispose();
    });

    /** An entry sent once, whose call ended with `outcome`; its request. */
    async function sentOnce(guid: string, outcome: CoreOutcome): Promise<string> {
      const request = JSON.stringify({ guid, amount: 7 });
      await ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 3 });
      await ledger.send(guid);
      await ledger.record(guid, 1, outcome);
      return request;
    }

    const entryPage = async (guid: string, withCookie = true): Promise<string> =>
      (await fetch(`${base}/ledger/${guid}`, withCookie ? { headers: { cookie } } : {})).text();
    const post = (guid: string, act: string, fields: Record<string, string>, withCookie = true): Promise<Response> =>
      fetch(`${base}/ledger/${guid}/${act}`, {
        method: "POST",
        redirect: "manual",
        headers: withCookie ? { ...FORM, cookie } : FORM,
        body: new URLSearchParams(fields),
      });
    const eventCount = async (): Promise<number> => (await store.db.selectFrom("events").select("position").execute()).length;

    it("asks the core about an UNKNOWN entry once it is old enough: found → DONE with the core's answer, the event marked", async () => {
      const request = await sentOnce("L-1", { kind: "no-answer" });
      core.bank.process(request); // the core had processed it; its answer was lost
      const young = await entryPage("L-1");
      expect(young).not.toContain('data-act="resolve"');
      expect(young).toContain('id="no-act"');
      clock.advance(MIN_AGE);
      const page = await entryPage("L-1");
      expect(page).toContain("Ask the core");
      const sent = await post("L-1", "resolve", { form_token: tokenOf(page, 'data-act="resolve"'), version: versionOf(page) });
      expect(sent.status).toBe(303);
      expect(sent.headers.get("location")).toBe("/ledger/L-1?acted=resolve#acted");
      expect(await ledger.get("L-1")).toMatchObject({ state: "DONE", response: core.bank.inquire("L-1") });
      expect(core.calls("L-1")).toBe(1);
      const after = await (await fetch(`${base}${sent.headers.get("location") ?? ""}`, { headers: { cookie } })).text();
      expect(after).toMatch(/data-type="guid\.done" data-acted="true" id="acted"/);
      expect(after).not.toContain('class="act"');
    });

    it("asks the core, which has no record: UNKNOWN → FAILED; a core that cannot be reached is 502 and changes nothing", async () => {
      await sentOnce("L-2", { kind: "no-answer" });
      clock.advance(MIN_AGE);
      await core.refuseConnections();
      let page = await entryPage("L-2");
      const before = await eventCount();
      const unreachable = await post("L-2", "resolve", {
        form_token: tokenOf(page, 'data-act="resolve"'),
        version: versionOf(page),
      });
      expect(unreachable.status).toBe(502);
      expect(codeOf(await unreachable.text())).toBe("VERQ_RETRYABLE");
      expect(await eventCount()).toBe(before);
      expect((await ledger.get("L-2"))?.state).toBe("UNKNOWN");
      await core.acceptConnections();
      page = await entryPage("L-2");
      const sent = await post("L-2", "resolve", { form_token: tokenOf(page, 'data-act="resolve"'), version: versionOf(page) });
      expect(sent.status).toBe(303);
      expect(await ledger.get("L-2")).toMatchObject({ state: "FAILED" });
    });

    it("sends a FAILED entry again with the same GUID and request: FAILED → DONE; at the cap no form is offered", async () => {
      const request = await sentOnce("L-3", { kind: "not-sent" });
      const page = await entryPage("L-3");
      expect(page).toContain("Send again");
      const sent = await post("L-3", "reprocess", {
        form_token: tokenOf(page, 'data-act="reprocess"'),
        version: versionOf(page),
      });
      expect(sent.status).toBe(303);
      expect(sent.headers.get("location")).toBe("/ledger/L-3?acted=reprocess#acted");
      expect(await ledger.get("L-3")).toMatchObject({ state: "DONE", attempts: 2 });
      expect(core.bank.requests("L-3")).toEqual([request]);
      const after = await entryPage("L-3?acted=reprocess");
      expect(after).toMatch(/data-type="guid\.done" data-acted="true" id="acted"/);

      await sentOnce("L-4", { kind: "not-sent" });
      await ledger.reprocess("L-4", 3);
      await ledger.record("L-4", 2, { kind: "not-sent" });
      await ledger.reprocess("L-4", 3);
      await ledger.record("L-4", 3, { kind: "not-sent" });
      const atCap = await entryPage("L-4");
      expect(atCap).not.toContain('class="act"');
      expect(atCap).toContain("attempt cap (3 of 3)");
    });

    it("refuses a form drawn before the entry moved on with VERQ_ENTRY_CHANGED, and a replayed form with VERQ_FORM_USED: nothing changed", async () => {
      await sentOnce("L-5", { kind: "not-sent" });
      const seen = await entryPage("L-5");
      const other = await entryPage("L-5");
      // Another operator sends it again first; it fails again, and is FAILED below the cap as when seen.
      await core.refuseConnections();
      const first = await post("L-5", "reprocess", {
        form_token: tokenOf(other, 'data-act="reprocess"'),
        version: versionOf(other),
      });
      expect(first.status).toBe(303);
      expect(await ledger.get("L-5")).toMatchObject({ state: "FAILED", attempts: 2 });
      expect(await entryPage("L-5")).toContain("Send again");
      const before = await eventCount();
      const stale = await post("L-5", "reprocess", {
        form_token: tokenOf(seen, 'data-act="reprocess"'),
        version: versionOf(seen),
      });
      expect(stale.status).toBe(409);
      expect(codeOf(await stale.text())).toBe("VERQ_ENTRY_CHANGED");
      const replayed = await post("L-5", "reprocess", {
        form_token: tokenOf(other, 'data-act="reprocess"'),
        version: versionOf(other),
      });
      expect(replayed.status).toBe(409);
      expect(codeOf(await replayed.text())).toBe("VERQ_FORM_USED");
      expect(await eventCount()).toBe(before);
      expect(await ledger.get("L-5")).toMatchObject({ state: "FAILED", attempts: 2 });
      expect(core.received).toBe(0);
    });

    it("refuses an act the guid machine refuses on the entry as shown with the machine's own code (409): nothing changed, the core not called", async () => {
      await sentOnce("L-7", { kind: "no-answer" }); // UNKNOWN, younger than the min age
      await sentOnce("L-8", { kind: "not-sent" }); // FAILED, below the cap
      await sentOnce("L-9", { kind: "not-sent" });
      for (const attempt of [2, 3]) {
        await ledger.reprocess("L-9", 3);
        await ledger.record("L-9", attempt, { kind: "not-sent" });
      }
      // Were the core asked about an entry, the act would end 502 VERQ_RETRYABLE instead.
      await core.refuseConnections();
      const entries = async () => Promise.all(["L-7", "L-8", "L-9"].map((guid) => ledger.get(guid)));
      const before = { events: await eventCount(), entries: await entries() };
      const refusals = [
        { guid: "L-7", act: "resolve", code: "VERQ_ENTRY_TOO_YOUNG", says: "the core may still be processing it" },
        { guid: "L-8", act: "resolve", code: "VERQ_NOT_UNKNOWN", says: "only an UNKNOWN entry is settled" },
        { guid: "L-7", act: "reprocess", code: "VERQ_NOT_FAILED", says: "it is never sent again" },
        { guid: "L-9", act: "reprocess", code: "VERQ_ATTEMPTS_EXHAUSTED", says: "attempt cap (3 of 3)" },
      ];
      for (const { guid, act, code, says } of refusals) {
        // The form is posted as the entry is now: the version is current, only the machine refuses.
        const version = String((await ledger.get(guid))?.version);
        const page = await entryPage(guid);
        const refused = await post(guid, act, { form_token: tokenOf(page, 'class="logout"'), version });
        const text = await refused.text();
        expect({ guid, act, status: refused.status, code: codeOf(text) }).toEqual({ guid, act, status: 409, code });
        expect(text).toContain(says);
        expect(text).toContain(`id="problem-back" href="/ledger/${guid}"`);
      }
      expect(await eventCount()).toBe(before.events);
      expect(await entries()).toEqual(before.entries);
      expect(core.received).toBe(0);
    });

    it("refuses an inquiry drawn before another settled the entry with VERQ_ENTRY_CHANGED, though the core is not asked", async () => {
      const request = await sentOnce("L-10", { kind: "no-answer" });
      core.bank.process(request);
      clock.advance(MIN_AGE);
      const seen = await entryPage("L-10");
      const other = await entryPage("L-10");
      const first = await post("L-10", "resolve", {
        form_token: tokenOf(other, 'data-act="resolve"'),
        version: versionOf(other),
      });
      expect(first.status).toBe(303);
      const settled = await ledger.get("L-10");
      expect(settled?.state).toBe("DONE");
      const before = await eventCount();
      const stale = await post("L-10", "resolve", { form_token: tokenOf(seen, 'data-act="resolve"'), version: versionOf(seen) });
      expect(stale.status).toBe(409);
      expect(codeOf(await stale.text())).toBe("VERQ_ENTRY_CHANGED");
      expect(await eventCount()).toBe(before);
      expect(await ledger.get("L-10")).toEqual(settled);
    });

    it("refuses an act without a session (401); offers no form without a session, nor without a core", async () => {
      await sentOnce("L-6", { kind: "not-sent" });
      const page = await entryPage("L-6");
      const before = await eventCount();
      const anonymous = await post(
        "L-6",
        "reprocess",
        { form_token: tokenOf(page, 'data-act="reprocess"'), version: versionOf(page) },
        false,
      );
      expect(anonymous.status).toBe(401);
      expect(codeOf(await anonymous.text())).toBe("VERQ_UNAUTHENTICATED");
      expect(await eventCount()).toBe(before);
      expect(await entryPage("L-6", false)).not.toContain('class="act"');

      const withoutCore = createDashboardServer({ store, clock, auth: TOKEN_AUTH });
      const url = await withoutCore.listen({ port: 0, host: "127.0.0.1" });
      try {
        const session = await logIn(url);
        const text = await (await fetch(`${url}/ledger/L-6`, { headers: { cookie: session } })).text();
        expect(text).toContain("operator <code>token</code>");
        expect(text).not.toContain('class="act"');
        const route = await fetch(`${url}/ledger/L-6/reprocess`, {
          method: "POST",
          headers: { ...FORM, cookie: session },
          body: "a=1",
        });
        expect(route.status).toBe(404);
      } finally {
        await withoutCore.close();
      }
    });
  });
}
