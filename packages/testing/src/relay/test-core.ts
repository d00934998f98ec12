import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TestBank } from "./test-bank.ts";

/** How to start a {@link TestCore}. */
export interface TestCoreOptions {
  /** 127.0.0.1 unless told otherwise. */
  readonly host?: string;
  /** 0 (a free port) unless told otherwise. */
  readonly port?: number;
  readonly openingBalance?: number;
}

/**
 * A core for tests and the demo (issue part 5), over real HTTP: `POST /transfer` processes
 * with a {@link TestBank} (not idempotent: a second call for one GUID debits again) and
 * `GET /transfer/{guid}` answers the first answer (200) or `{"guid","code":"NOT_FOUND"}` (404).
 * It can be told to:
 * - {@link delay} each transfer (it is processed at the end of the delay, even if the caller
 *   gave up: "the core is slower than the relay's timeout");
 * - {@link dropAnswers}: process, then close the connection without an answer;
 * - {@link answerInvalid}: process, then answer something that is not a valid core answer;
 * - {@link loseRequests}: read each transfer and never process or answer it (lost inside the core);
 * - {@link failInquiries}: answer inquiries with 503;
 * - {@link refuseConnections}: close its listener and every connection (ECONNREFUSED), until
 *   {@link acceptConnections} listens again on the same port.
 */
export class TestCore {
  readonly bank: TestBank;
  readonly #server: Server;
  readonly #host: string;
  #port: number;
  #delayMs = 0;
  #dropAnswers = false;
  #answerInvalid = false;
  #failInquiries = false;
  #loseRequests = false;
  #received = 0;
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Server, host: string, port: number, bank: TestBank) {
    this.#server = server;
    this.#host = host;
    this.#port = port;
    this.bank = bank;
  }

  /** Starts a test core listening on 127.0.0.1 (port 0 by default). */
  static async start(options: TestCoreOptions = {}): Promise<TestCore> {
    const holder: { core?: TestCore } = {};
    const server = createServer((request, response) => {
      if (holder.core !== undefined) holder.core.#handle(request, response);
    });
    const host = options.host ?? "127.0.0.1";
    await listen(server, options.port ?? 0, host);
    holder.core = new TestCore(server, host, (server.address() as AddressInfo).port, new TestBank(options.openingBalance));
    return holder.core;
  }

  /** The base URL, e.g. `http://127.0.0.1:43121` (the relay appends `/transfer`). */
  get url(): string {
    return `http://${this.#host}:${this.#port}`;
  }

  /** How many times `guid` was processed. */
  calls(guid: string): number {
    return this.bank.calls(guid);
  }

  /** Transfers processed in all. */
  get totalCalls(): number {
    return this.bank.totalCalls;
  }

  /** `POST /transfer` requests that arrived, processed or not yet. */
  get received(): number {
    return this.#received;
  }

  /** Processes (and answers) each following transfer `ms` after it arrives. */
  delay(ms: number): this {
    this.#delayMs = ms;
    return this;
  }

  /** Processes each following transfer, then drops the connection without an answer. */
  dropAnswers(on = true): this {
    this.#dropAnswers = on;
    return this;
  }

  /** Processes each following transfer, then answers `{"status":"ok"}` (not a valid core answer). */
  answerInvalid(on = true): this {
    this.#answerInvalid = on;
    return this;
  }

  /** Reads each following transfer and never processes or answers it: the caller times out, the core has no record. */
  loseRequests(on = true): this {
    this.#loseRequests = on;
    return this;
  }

  /** Answers each following inquiry with 503. */
  failInquiries(on = true): this {
    this.#failInquiries = on;
    return this;
  }

  /** Closes the listener and every open connection: the next connect is refused. */
  async refuseConnections(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  /** Listens again, on the same port. */
  async acceptConnections(): Promise<void> {
    await listen(this.#server, this.#port, this.#host);
  }

  /** Stops for good; transfers still waiting for their delay are not processed. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    if (!this.#server.listening) return;
    await this.refuseConnections();
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = request.url ?? "/";
    if (request.method === "POST" && url === "/transfer") {
      this.#received++;
      if (this.#loseRequests) {
        request.resume();
        return;
      }
      readBody(request, (text) => {
        const work = () => this.#transfer(text, response);
        if (this.#delayMs <= 0) return work();
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          work();
        }, this.#delayMs);
        this.#timers.add(timer);
      });
      return;
    }
    const inquiry = /^\/transfer\/([^/]+)$/.exec(url);
    if (request.method === "GET" && inquiry?.[1] !== undefined) {
      const guid = decodeURIComponent(inquiry[1]);
      if (this.#failInquiries) return send(response, 503, JSON.stringify({ error: "inquiry unavailable" }));
      const answer = this.bank.inquire(guid);
      return answer === null ? send(response, 404, JSON.stringify({ guid, code: "NOT_FOUND" })) : send(response, 200, answer);
    }
    send(response, 404, JSON.stringify({ error: "no such route" }));
  }

  #transfer(text: string, response: ServerResponse): void {
    const answer = this.bank.process(text);
    if (answer === null) return send(response, 400, JSON.stringify({ error: "a transfer is a JSON object with a guid" }));
    if (this.#dropAnswers) {
      response.socket?.destroy();
      return;
    }
    send(response, 200, this.#answerInvalid ? JSON.stringify({ status: "ok" }) : answer);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function readBody(request: IncomingMessage, then: (text: string) => void): void {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => then(Buffer.concat(chunks).toString("utf8")));
  request.on("error", () => {});
}

function send(response: ServerResponse, status: number, body: string): void {
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body);
}
