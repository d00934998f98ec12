import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TestCore } from "../src/relay/test-core.ts";

let core: TestCore;
beforeEach(async () => {
  core = await TestCore.start({ openingBalance: 1_000 });
});
afterEach(async () => {
  await core.close();
});

const transfer = (body: string, timeoutMs = 2_000) =>
  fetch(`${core.url}/transfer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
const inquire = (guid: string) => fetch(`${core.url}/transfer/${guid}`);
const errorCode = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? (error as { name?: string }).name;

describe("the test core (issue part 5)", () => {
  it("G9: is not idempotent: a second call for one GUID debits again, and every call is counted per GUID", async () => {
    const first = await (await transfer('{"guid":"C-1","amount":100}')).text();
    const second = await (await transfer('{"guid":"C-1","amount":100}')).text();
    expect(JSON.parse(first)).toMatchObject({ guid: "C-1", code: "0000", balance: 900 });
    expect(JSON.parse(second)).toMatchObject({ guid: "C-1", code: "0000", balance: 800 });
    expect(core.calls("C-1")).toBe(2);
    expect(core.bank.balance).toBe(800);
    expect(await (await transfer('{"guid":"C-2","amount":5000}')).json()).toMatchObject({ code: "B201", balance: 800 });
    expect(await (await transfer('{"guid":"C-3"}')).json()).toMatchObject({ code: "E500" });
  });

  it("answers inquiries with its first answer for a GUID (200), or 404 naming the GUID", async () => {
    const first = await (await transfer('{"guid":"C-4","amount":1}')).text();
    await transfer('{"guid":"C-4","amount":1}');
    const found = await inquire("C-4");
    expect([found.status, await found.text()]).toEqual([200, first]);
    const missing = await inquire("C-5");
    expect([missing.status, await missing.json()]).toEqual([404, { guid: "C-5", code: "NOT_FOUND" }]);
    core.failInquiries();
    expect((await inquire("C-4")).status).toBe(503);
  });

  it("can delay (processing at the end of the delay even when the caller gave up), drop the answer after processing, or lose the request", async () => {
    core.delay(150);
    const gaveUp: unknown = await transfer('{"guid":"C-6","amount":1}', 30).catch((e: unknown) => e);
    expect(errorCode(gaveUp)).toBe("TimeoutError");
    expect(core.calls("C-6")).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(core.calls("C-6")).toBe(1);
    core.delay(0).dropAnswers();
    const dropped: unknown = await transfer('{"guid":"C-7","amount":1}').catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(Error);
    expect(core.calls("C-7")).toBe(1);
    core.dropAnswers(false).loseRequests();
    const lost: unknown = await transfer('{"guid":"C-8","amount":1}', 100).catch((e: unknown) => e);
    expect(errorCode(lost)).toBe("TimeoutError");
    expect([core.calls("C-8"), core.received]).toEqual([0, 3]);
  });

  it("can refuse connections (ECONNREFUSED) and accept them again on the same port", async () => {
    const url = core.url;
    await core.refuseConnections();
    const refused: unknown = await transfer('{"guid":"C-9","amount":1}').catch((e: unknown) => e);
    expect(errorCode(refused)).toBe("ECONNREFUSED");
    expect(core.received).toBe(0);
    await core.acceptConnections();
    expect(core.url).toBe(url);
    expect((await transfer('{"guid":"C-9","amount":1}')).status).toBe(200);
  });
});
