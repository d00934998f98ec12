import { readFileSync } from "node:fs";
import { ENGINES, engineAvailable } from "@verq/testing";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, VERQ_TRACER_VERSION, checkStore, traceContextOf, verqTracing } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

/*
 * Tracing is optional: with `@opentelemetry/api` installed and no SDK registered (this file
 * registers none) the API does nothing and verq stores nothing; without the package verq runs
 * as it always did.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] jobs without an OpenTelemetry SDK`, () => {
    const stores = freshStores();

    it("are enqueued, handled and finished as ever, with no trace context stored", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store);
      expect(verqTracing().installed).toBe(true);
      // A span of the API's own no-op tracer: not a trace anything could continue.
      await trace.getTracer("test").startActiveSpan("parent", async (span) => {
        await queue.enqueue({ id: "a", payload: { n: 1 }, kind: "mail" });
        await queue.enqueueMany([{ id: "b", payload: null }]);
        span.end();
      });
      const report = await new JobWorker(queue, { owner: "w", logger: null, concurrency: 2, sender: () => true }).drain();
      expect(report).toMatchObject({ claimed: 2, ok: 2, errors: 0 });
      for (const id of ["a", "b"]) {
        const job = await queue.get(id);
        expect(job?.state).toBe("done");
        expect(job).not.toHaveProperty("traceContext");
      }
      expect((await checkStore(store)).findings).toEqual([]);
    });
  });
}

describe("a service without @opentelemetry/api", () => {
  let dir: TempDir | undefined;
  afterEach(() => dir?.remove());

  it("enqueues and works jobs, tracing nothing", async () => {
    dir = makeTempDir("untraced");
    const child = runTsChild(helperScript("untraced-worker.ts"), [dir.file("verq.db")], {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=verq-source --require ${helperScript("without-opentelemetry.cjs")}`,
    });
    const code = await child.exited();
    expect(code, child.stderr()).toBe(0);
    expect(JSON.parse(child.stdout())).toEqual({ installed: false, state: "done", traceContext: null, findings: [] });
  });
});

describe("traceContextOf", () => {
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  it("keeps a W3C traceparent of version 00, and a printable tracestate of at most 512 characters", () => {
    expect(traceContextOf({ traceparent })).toEqual({ traceparent });
    expect(traceContextOf({ traceparent, tracestate: "congo=t61rcWkgMzE" })).toEqual({
      traceparent,
      tracestate: "congo=t61rcWkgMzE",
    });
    expect(traceContextOf({ traceparent, tracestate: "x".repeat(513) })).toEqual({ traceparent });
    expect(traceContextOf({ traceparent, tracestate: "a=b\n" })).toEqual({ traceparent });
  });

  it("drops anything else, as a W3C propagator ignores such a header", () => {
    for (const bad of [
      undefined,
      42,
      "",
      "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
      "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
    ]) {
      expect(traceContextOf({ traceparent: bad }), String(bad)).toBeUndefined();
    }
  });
});

describe("the verq tracer", () => {
  it("reports the version of the packages", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(VERQ_TRACER_VERSION).toBe(pkg.version);
  });
});
