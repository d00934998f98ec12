import net from "node:net";
import type { RawRequest } from "./raw-case.ts";

/** What came back on the socket: a parsed answer, or nothing before the connection closed. */
export interface RawAnswer {
  /** `null` when the server closed the connection without an answer (or the client left first). */
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Whether the server closed the connection (it ended or reset it) rather than the client. */
  readonly closedByServer: boolean;
}

/** The first whole HTTP/1.1 answer in `bytes`, or `null` while it is incomplete. */
function parseAnswer(bytes: Buffer, closed: boolean): Omit<RawAnswer, "closedByServer"> | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end === -1) return null;
  const [statusLine = "", ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (Number.isNaN(status)) throw new Error(`not an HTTP answer: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = bytes.subarray(end + 4);
  const length = headers["content-length"];
  if (length === undefined) return closed ? { status, headers, body: rest.toString("utf8") } : null;
  if (rest.length < Number(length)) return null;
  return { status, headers, body: rest.subarray(0, Number(length)).toString("utf8") };
}

/**
 * Sends `bytes` over a fresh TCP connection to 127.0.0.1:`port` as `send` says (see
 * {@link RawRequest}) and resolves to the answer, once whole or once the connection closes.
 * Fails when nothing at all happens within `timeoutMs`: a server that neither answers nor
 * closes is a finding too.
 */
export function rawExchange(
  port: number,
  bytes: Buffer,
  send: Pick<RawRequest, "send" | "trickleMs"> = {},
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    const chunks: Buffer[] = [];
    let clientLeft = false;
    let trickle: NodeJS.Timeout | undefined;
    const finish = (answer: RawAnswer | Error) => {
      clearTimeout(timer);
      clearInterval(trickle);
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const timer = setTimeout(() => finish(new Error(`no answer and no close within ${timeoutMs} ms`)), timeoutMs);
    const settle = (closed: boolean) => {
      try {
        const answer = parseAnswer(Buffer.concat(chunks), closed);
        if (answer !== null) finish({ ...answer, closedByServer: closed && !clientLeft });
        else if (closed) finish({ status: null, headers: {}, body: "", closedByServer: !clientLeft });
      } catch (error) {
        finish(error as Error);
      }
    };
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      settle(false);
    });
    socket.on("error", () => settle(true)); // a reset is the server closing too
    socket.on("close", () => settle(true));
    socket.on("connect", () => {
      const half = bytes.subarray(0, Math.floor(bytes.length / 2));
      switch (send.send ?? "whole") {
        case "whole":
          socket.write(bytes);
          break;
        case "nothing":
          break;
        case "cut-and-end":
          socket.end(half);
          break;
        case "cut-and-close":
          clientLeft = true;
          socket.write(half, () => socket.destroy());
          break;
        case "trickle": {
          let at = 0;
          trickle = setInterval(() => {
            if (at < bytes.length && socket.writable) socket.write(bytes.subarray(at, ++at));
          }, send.trickleMs ?? 100);
          break;
        }
      }
    });
  });
}
