import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BadAck, isVerqError } from "@verq/core";
import type { ClaimedJob } from "@verq/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpSender } from "../../src/http/http-sender.ts";

/** A real server on 127.0.0.1 whose answer the test sets per request path. */
let server: Server;
let base: string;
const seen: { key: string | undefined; token: string | undefined; body: string }[] = [];
let answer: { status: number; body: string; delayMs?: number } = { status: 200, body: '{"ok":true}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({
        key: req.headers["idempotency-key"] as string | undefined,
        token: req.headers["verq-fencing-token"] as string | undefined,
        body,
      });
      const { status, body: out, delayMs } = answer;
      setTimeout(() => res.writeHead(status, { "content-type": "application/json" }).end(out), delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const job = { id: "order-7", token: 3, payload: { quantity: 7 } } as unknown as ClaimedJob;

async function outcome(
  status: number,
  body: string,
  options: { delayMs?: number; timeoutMs?: number; url?: string } = {},
): Promise<unknown> {
  answer = { status, body, ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }) };
  try {
    return await createHttpSender({ url: options.url ?? base, timeoutMs: options.timeoutMs ?? 2_000 })(job);
  } catch (error) {
    return isVerqError(error) ? error.code : error;
  }
}

describe("HTTP sender (J5 over HTTP)", () => {
  it("sends the payload with the job id as Idempotency-Key and the token", async () => {
    seen.length = 0;
    expect(await outcome(200, '{"ok":true}')).toBe(true);
    expect(seen).toEqual([{ key: "order-7", token: "3", body: '{"quantity":7}' }]);
  });

  it.each([
    [200, '{"ok":true,"id":"r-1"}', true],
    [201, '{"ok":true}', true],
    [200, '{"ok":"true"}', "VERQ_BAD_ACK"],
    [200, '{"ok":1}', "VERQ_BAD_ACK"],
    [200, "true", "VERQ_BAD_ACK"],
    [200, "ok", "VERQ_BAD_ACK"],
    [204, "", "VERQ_BAD_ACK"],
    [408, "{}", "VERQ_RETRYABLE"],
    [429, "{}", "VERQ_RETRYABLE"],
    [500, '{"ok":true}', "VERQ_RETRYABLE"],
    [503, "", "VERQ_RETRYABLE"],
    [400, "{}", "VERQ_PERMANENT"],
    [404, "{}", "VERQ_PERMANENT"],
    [422, '{"ok":true}', "VERQ_PERMANENT"],
    [302, "", "VERQ_PERMANENT"],
  ])("HTTP %i with body %s → %s", async (status, body, expected) => {
    expect(await outcome(status, body)).toBe(expected);
  });

  it("a timeout is Retryable", async () => {
    expect(await outcome(200, '{"ok":true}', { delayMs: 500, timeoutMs: 100 })).toBe("VERQ_RETRYABLE");
  });

  it("a refused connection is Retryable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await outcome(200, "", { url: `http://127.0.0.1:${port}/` })).toBe("VERQ_RETRYABLE");
  });

  it("a BadAck never carries the body in its message", async () => {
    answer = { status: 200, body: '{"card":"4111"}' };
    const error = await createHttpSender({ url: base })(job).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadAck);
    expect((error as Error).message).not.toContain("4111");
  });
});
