import net from "node:net";

/** Where a {@link CuttingProxy} cuts a connection, relative to the statement it waits for. */
export type CutPoint = "before" | "after";

/** A cut the proxy made: the statement's text, and whether the server had run it. */
export interface Cut {
  readonly statement: string;
  readonly at: CutPoint;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that can cut a client's connection at
 * a chosen statement: `before` drops the statement and closes both sides, so the server never
 * runs it (a COMMIT cut so rolls back); `after` lets the server run it and answer, then closes
 * both sides before the answer reaches the client (a COMMIT cut so has landed, and the client
 * cannot know). It reads PostgreSQL's wire protocol only as far as the message boundaries, the
 * text of simple queries and of parsed statements, and the server's ReadyForQuery.
 */
export interface CuttingProxy {
  /** `postgres://…` of the proxy, with the path and parameters of the URL it stands in front of. */
  readonly url: string;
  /**
   * Cuts the next connection that sends a statement `matches` accepts, at `at`; resolves with
   * the cut once it was made.
   */
  cutNext(matches: (statement: string) => boolean, at: CutPoint): Promise<Cut>;
  /** Drops the cut armed and not made yet, if any (its promise never settles). */
  disarm(): void;
  /** Every cut made so far. */
  readonly cuts: readonly Cut[];
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

interface Armed {
  readonly matches: (statement: string) => boolean;
  readonly at: CutPoint;
  readonly done: (cut: Cut) => void;
}

/** The statement text a frontend message carries: a simple query's, a Parse's, or the parsed text a Bind names. */
function statementOf(type: number, body: Buffer, parsed: Map<string, string>): string | null {
  const cString = (from: number): [string, number] => {
    const end = body.indexOf(0, from);
    return [body.toString("utf8", from, end), end + 1];
  };
  if (type === 0x51) return cString(0)[0]; // 'Q'
  if (type === 0x50) {
    // 'P': statement name, then its text.
    const [name, next] = cString(0);
    const [text] = cString(next);
    parsed.set(name, text);
    return text;
  }
  if (type === 0x42) {
    // 'B': portal name, then the statement's name.
    const [, next] = cString(0);
    const [name] = cString(next);
    return parsed.get(name) ?? null;
  }
  return null;
}

/** Starts a proxy in front of the server of `target` (a `postgres://` URL without TLS). */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<net.Socket>();
  const cuts: Cut[] = [];
  let armed: Armed | null = null;

  const server = net.createServer((client) => {
    const backend = net.connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client).add(backend);
    const parsed = new Map<string, string>();
    let cutting: { statement: string; done: (cut: Cut) => void } | null = null;
    let startup = true;
    let pending = Buffer.alloc(0);
    let answer = Buffer.alloc(0);
    const cut = () => {
      client.destroy();
      backend.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let forward = 0;
      for (;;) {
        if (startup) {
          // The startup message has no type byte: its length, then the protocol.
          if (pending.length - forward < 4) break;
          const length = pending.readInt32BE(forward);
          if (pending.length - forward < length) break;
          forward += length;
          startup = false;
          continue;
        }
        if (pending.length - forward < 5) break;
        const type = pending[forward] as number;
        const length = pending.readInt32BE(forward + 1);
        if (pending.length - forward < 1 + length) break;
        const body = pending.subarray(forward + 5, forward + 1 + length);
        const statement = statementOf(type, body, parsed);
        const trap = armed;
        if (statement !== null && trap !== null && cutting === null && trap.matches(statement)) {
          armed = null;
          if (trap.at === "before") {
            // What came before the statement goes on; the statement never reaches the server.
            backend.write(pending.subarray(0, forward), () => {
              const made = { statement, at: "before" as const };
              cuts.push(made);
              cut();
              trap.done(made);
            });
            pending = Buffer.alloc(0);
            return;
          }
          cutting = { statement, done: trap.done };
        }
        forward += 1 + length;
      }
      if (forward > 0) {
        backend.write(pending.subarray(0, forward));
        pending = pending.subarray(forward);
      }
    });
    backend.on("data", (chunk: Buffer) => {
      if (cutting === null) {
        client.write(chunk);
        return;
      }
      // Held back until the server is ready again: then it has run the statement, and the client never hears of it.
      answer = Buffer.concat([answer, chunk]);
      let at = 0;
      while (answer.length - at >= 5) {
        const type = answer[at] as number;
        const length = answer.readInt32BE(at + 1);
        if (answer.length - at < 1 + length) break;
        at += 1 + length;
        if (type === 0x5a) {
          const made = { statement: cutting.statement, at: "after" as const };
          cuts.push(made);
          cut();
          cutting.done(made);
          return;
        }
      }
    });
    const end = () => {
      sockets.delete(client);
      sockets.delete(backend);
      cut();
    };
    client.on("error", end).on("close", end);
    backend.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    cuts,
    cutNext(matches, at) {
      if (armed !== null) throw new Error("a cut is already armed");
      return new Promise<Cut>((resolve) => {
        armed = { matches, at, done: resolve };
      });
    },
    disarm() {
      armed = null;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
