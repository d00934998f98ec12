import { openStore, ReceiptBook, type VerqStore } from "@verq/store";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReceiverServer } from "../../src/http/receiver-server.ts";
import { tempDir } from "../support/verq-process.ts";

let dir: ReturnType<typeof tempDir>;
let store: VerqStore;
let app: FastifyInstance;
let url: string;

beforeEach(async () => {
  dir = tempDir("verq-receiver-");
  store = await openStore({ path: `${dir.path}/receiver.sqlite` });
  app = createReceiverServer({ store, bodyLimit: 1_024 });
  url = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterEach(async () => {
  await app.close();
  await store.close();
  dir.remove();
});

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
const counts = async () => (await (await fetch(`${url}/inventory`)).json()) as Record<string, number>;

describe("idempotent receiver", () => {
  it("J8: commits the key and the effect once; a repeat gets the first answer byte for byte and no second effect", async () => {
    const first = await post('{"quantity":7}', { "idempotency-key": "order-7" });
    const firstText = await first.text();
    const again = await post('{"quantity":7}', { "idempotency-key": "order-7" });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstText);
    expect(firstText).toBe('{"ok":true}');
    expect(first.headers.get("idempotent-replayed")).toBe("false");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await counts()).toEqual({ inventory: 7, requests: 2, effects: 1 });
  });

  it("concurrent repeats of one key apply the effect once", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('{"quantity":3}', { "idempotency-key": "k" })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await counts()).toEqual({ inventory: 3, requests: 20, effects: 1 });
  });

  it.each([
    ["no Idempotency-Key", '{"quantity":7}', {}, 400, "VERQ_MISSING_IDEMPOTENCY_KEY"],
    ["malformed JSON", '{"quantity":', { "idempotency-key": "a" }, 400, "VERQ_INVALID_BODY"],
    ["a quantity that is not a number", '{"quantity":"7"}', { "idempotency-key": "a" }, 400, "VERQ_INVALID_BODY"],
    ["a negative quantity", '{"quantity":-1}', { "idempotency-key": "a" }, 400, "VERQ_INVALID_BODY"],
    ["an oversized body", JSON.stringify({ quantity: 1, pad: "x".repeat(2_000) }), { "idempotency-key": "a" }, 413, "VERQ_BODY_TOO_LARGE"],
    ["a key with a line break", '{"quantity":7}', { "idempotency-key": "a\tb" }, 400, "VERQ_INVALID_IDEMPOTENCY_KEY"],
  ])("%s gets HTTP %i with a stable code and changes nothing", async (_what, body, headers, status, code) => {
    const response = await post(body, headers);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(await counts()).toEqual({ inventory: 0, requests: 0, effects: 0 });
  });

  it("an effect that throws records nothing, so the key can be tried again", async () => {
    const book = new ReceiptBook(store);
    await expect(book.once("k", () => Promise.reject(new Error("downstream down")))).rejects.toThrow("downstream down");
    const retry = await book.once("k", (trx) => ReceiptBook.addInventory(trx, "default", 2).then(() => "ok"));
    expect(retry).toEqual({ applied: true, response: "ok" });
    expect(await book.counts()).toMatchObject({ inventory: 2, effects: 1 });
  });
});
