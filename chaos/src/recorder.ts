/**
 * The effect recorder: an HTTP server of the harness on 127.0.0.1 that every system's handler
 * calls, so that the same counter judges every system. A handler run is one POST:
 *
 * - `POST /run/<worker>` with `{ job, attempt }` (graphile-worker, pg-boss and BullMQ handlers);
 * - `POST /verq/<worker>` with the job id in `Idempotency-Key` and its fencing token in
 *   `Verq-Fencing-Token` (verq's `jobs work --target` sender, which succeeds on `{"ok":true}`).
 *
 * Either is recorded when it arrives and answered after `delayMs`, so the handler is still
 * running when a fault lands. Nothing is deduplicated: two runs of one job are two effects,
 * which is how "completed twice" is counted. `POST /done/<worker>` (a handler about to return
 * success) and `POST /accepted/<worker>` (a queue confirming that it recorded the success) are
 * recorded and answered at once; they are what late completions are judged from for the peers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One report to the recorder. */
export interface Report {
  readonly job: string;
  /** The attempt as the system numbers it (verq's fencing token, graphile-worker's `attempts`, …). */
  readonly attempt: number;
  /** The worker process, `<slot>.<generation>`. */
  readonly worker: string;
  /** When it arrived, in ms since the epoch. */
  readonly at: number;
}

/** A handler run: its report, and when the recorder's answer to it was written (null until then). */
export interface Run extends Report {
  answeredAt: number | null;
}

/** The running recorder and what it heard. */
export interface Recorder {
  /** Its base URL, ending with `/`. */
  readonly url: string;
  readonly runs: Run[];
  readonly done: Report[];
  readonly accepted: Report[];
  stop(): Promise<void>;
}

const ROUTES = new Set(["run", "verq", "done", "accepted"]);

/** Starts a recorder whose handler runs last `delayMs`. */
export async function startRecorder(delayMs: number): Promise<Recorder> {
  const runs: Run[] = [];
  const done: Report[] = [];
  const accepted: Report[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const [, route = "", worker = "?"] = (request.url ?? "").split("/");
      if (request.method !== "POST" || !ROUTES.has(route)) {
        response.writeHead(404).end();
        return;
      }
      const at = Date.now();
      const report = route === "verq" ? fromVerqHeaders(request.headers, worker, at) : fromBody(body, worker, at);
      if (route === "done" || route === "accepted") {
        (route === "done" ? done : accepted).push(report);
        response.writeHead(204).end();
        return;
      }
      const run: Run = { ...report, answeredAt: null };
      runs.push(run);
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
        run.answeredAt = Date.now();
      }, delayMs);
    });
  });
  // Connections of a killed or frozen worker are dropped without a word: that is the point.
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    runs,
    done,
    accepted,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function fromVerqHeaders(headers: http.IncomingHttpHeaders, worker: string, at: number): Report {
  return { job: String(headers["idempotency-key"]), attempt: Number(headers["verq-fencing-token"]), worker, at };
}

function fromBody(body: string, worker: string, at: number): Report {
  const parsed = JSON.parse(body) as { job?: unknown; attempt?: unknown };
  return { job: String(parsed.job), attempt: Number(parsed.attempt), worker, at };
}

/**
 * What a worker child calls: POSTs `{ job, attempt }` to `<url><route>/<worker>` and resolves
 * once answered with a 2xx (rejects otherwise, so the handler fails and the queue retries).
 */
export async function report(
  url: string,
  route: "run" | "done" | "accepted",
  worker: string,
  job: string,
  attempt: number,
): Promise<void> {
  const response = await fetch(`${url}${route}/${worker}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ job, attempt }),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`the recorder answered HTTP ${response.status}`);
}
