import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isVerqError } from "@verq/core";
import { TestCore } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpCoreClient } from "../../src/relay/http-core-client.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server on 127.0.0.1 that answers every request with `status` and the raw `body` bytes. */
async function rawServer(status: number, body: Buffer): Promise<string> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(status, { "content-type": "application/json", "content-length": body.length });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the core client over fetch (sent without answer ≠ certainly not sent)", () => {
  it("G3: a refused connection is not-sent (→ FAILED, E902); the inquiry reports a failure", async () => {
    const core = await TestCore.start();
    const url = core.url;
    await core.close();
    const client = createHttpCoreClient({ url, timeoutMs: 1_000 });
    expect(await client.transfer("T-1", '{"guid":"T-1"}')).toEqual({ kind: "not-sent", reason: "ECONNREFUSED" });
    expect(await client.inquire("T-1")).toEqual({ kind: "failed", reason: "ECONNREFUSED" });
  });

  it("G3: no answer in time, or a connection dropped after the request, is no-answer (→ UNKNOWN, E901)", async () => {
    const core = await TestCore.start();
    closers.push(() => core.close());
    const client = createHttpCoreClient({ url: core.url, timeoutMs: 100 });
    core.delay(300);
    expect(await client.transfer("T-2", '{"guid":"T-2","amount":1}')).toEqual({ kind: "no-answer", reason: "TimeoutError" });
    core.delay(0).dropAnswers();
    const dropped = await client.transfer("T-3", '{"guid":"T-3","amount":1}');
    expect(dropped.kind).toBe("no-answer");
    expect(core.calls("T-3")).toBe(1);
  });

  it("keeps the answer's exact text; an answer that is not UTF-8 or too long comes back with body null (not a valid answer)", async () => {
    const exact = '{"guid":"T-4","code":"0000","note":"caf\u00e9 \u2713"}';
    const client = createHttpCoreClient({ url: await rawServer(200, Buffer.from(exact, "utf8")) });
    expect(await client.transfer("T-4", "{}")).toEqual({ kind: "answered", status: 200, body: exact });
    const broken = createHttpCoreClient({ url: await rawServer(200, Buffer.from([0x7b, 0xc3, 0x28, 0x7d])) });
    expect(await broken.transfer("T-5", "{}")).toEqual({ kind: "answered", status: 200, body: null });
    const long = createHttpCoreClient({ url: await rawServer(200, Buffer.alloc(2_000, 0x20)), maxAnswerBytes: 1_000 });
    expect(await long.transfer("T-6", "{}")).toEqual({ kind: "answered", status: 200, body: null });
  });

  it("refuses a core URL that is not http(s), or that carries what the requests would drop: credentials, a query, a fragment", () => {
    for (const url of [
      "not a url",
      "ftp://127.0.0.1/core",
      "http://user:secret@127.0.0.1:8081/",
      "http://user@127.0.0.1:8081/",
      "http://127.0.0.1:8081/core?key=1",
      "http://127.0.0.1:8081/core#top",
    ]) {
      let error: unknown;
      try {
        createHttpCoreClient({ url });
      } catch (e) {
        error = e;
      }
      expect(isVerqError(error, "VERQ_INVALID_ARGUMENT"), url).toBe(true);
    }
  });
});
