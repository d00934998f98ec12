import { fileURLToPath } from "node:url";
import type { VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type Engine, type TestDatabase } from "@verq/testing";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, beforeAll, describe } from "vitest";
import { findChromium } from "./find-chromium.ts";
import { startDashboard, type RunningDashboard } from "./start-dashboard.ts";

/*
 * What the dashboard's browser tests share: one headless Chromium per test file (the one inside
 * the @sparticuz/chromium devDependency, or VERQ_CHROMIUM; driven by playwright-core) for every
 * engine's tests, pages whose requests off 127.0.0.1, CSP violations, errors and dialogs are
 * recorded, and a seeded database on one engine served by the real `verq dashboard` process.
 */

/** The viewport of the pages whose pictures are in docs/. */
export const WIDE: BrowserContextOptions = { viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 };

/** A module that exports the ticket's stream definition, for `--streams`. */
const TICKET_MODULE = fileURLToPath(new URL("./ticket-streams.ts", import.meta.url));

/** The path of a picture in docs/, e.g. `dashboard-jobs.png`. */
export const docsPicture = (name: string): string => fileURLToPath(new URL(`../../../../../docs/${name}`, import.meta.url));

/**
 * Whether this engine's run makes the pictures in docs/ again: with VERQ_SCREENSHOT=1, on the
 * first engine only, so that two engines never write one file.
 */
export const takesScreenshots = (engine: Engine): boolean => process.env.VERQ_SCREENSHOT === "1" && engine === ENGINES[0];

let launched: Promise<Browser> | undefined;

/**
 * The file's one headless Chromium, launched on first use and shared by every engine's tests;
 * closed after them. A missing browser rejects with what to do: the tests are required, never
 * skipped.
 */
function sharedChromium(): Promise<Browser> {
  launched ??= findChromium().then((executablePath) => chromium.launch({ executablePath, headless: true }));
  return launched;
}

/** Closes the browser {@link sharedChromium} launched, if any. */
async function closeChromium(): Promise<void> {
  const browser = launched;
  launched = undefined;
  await browser?.then(
    (b) => b.close(),
    () => {},
  );
}

/** A browser context whose every page is watched, and its first page. */
export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /**
   * What went wrong on any page of the context, in order: each request off 127.0.0.1 (blocked),
   * each Content-Security-Policy violation, uncaught error and dialog (dismissed).
   */
  readonly problems: string[];
  /** The path of each request that was served (all to 127.0.0.1). */
  readonly served: string[];
}

/** A new context of `browser` with `options` (see {@link WatchedPage}) and a page of it. */
export async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const problems: string[] = [];
  const served: string[] = [];
  await context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "http:" && url.hostname === "127.0.0.1") {
      served.push(url.pathname);
      await route.continue();
    } else {
      problems.push(`blocked ${url.href}`);
      await route.abort("blockedbyclient");
    }
  });
  // Chromium reports each CSP violation on the console ("Refused to load …", "… Content Security Policy …").
  context.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`csp ${message.text()}`);
  });
  context.on("weberror", (error) => problems.push(`error ${error.error().message}`));
  context.on("dialog", (dialog) => {
    problems.push(`dialog ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page: await context.newPage(), problems, served };
}

/** A seeded database on one engine, the real `verq dashboard` serving it, and the file's browser. */
export interface DashboardInChromium {
  readonly engine: Engine;
  readonly database: TestDatabase;
  readonly dashboard: RunningDashboard;
  readonly browser: Browser;
}

export interface DashboardOptions {
  /** The SQLite file's name. */
  readonly name: string;
  /** Writes the test's world into the fresh store (closed afterwards). */
  readonly seed: (store: VerqStore, engine: Engine) => Promise<unknown>;
  /** `verq dashboard`'s options besides `--db` and `--port`; a function is called after the file's own beforeAll hooks. */
  readonly args?: readonly string[] | ((engine: Engine) => readonly string[]);
  /** The dashboard process's environment, over this one's. */
  readonly env?: NodeJS.ProcessEnv;
  /** Declares the ticket stream with `--streams` (a TypeScript module, loaded through tsx as a service's own would be). */
  readonly ticketStreams?: boolean;
}

/** A fresh database on `engine`, seeded, and the dashboard on it; on failure, what was made is removed. */
async function serve(engine: Engine, options: DashboardOptions): Promise<Omit<DashboardInChromium, "browser">> {
  const database = await createTestDatabase(engine, options.name);
  try {
    const store = await database.open();
    try {
      await options.seed(store, engine);
    } finally {
      await store.close();
    }
    const args = typeof options.args === "function" ? options.args(engine) : (options.args ?? []);
    const env = options.env ?? {};
    const streams = options.ticketStreams === true;
    const dashboard = await startDashboard(
      ["--db", database.db, "--port", "0", ...(streams ? ["--streams", TICKET_MODULE] : []), ...args],
      streams ? { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ""} --import tsx` } : env,
    );
    return { engine, database, dashboard };
  } catch (error) {
    await database.dispose();
    throw error;
  }
}

/**
 * The dashboard's browser tests on both engines, as the repo's other both-engine tests run: for
 * each of {@link ENGINES}, a `describe` `[engine]` skipped when `engineAvailable(engine)` says so
 * (an unreachable PostgreSQL skips its tests and says why, or fails them under
 * VERQ_REQUIRE_POSTGRES=1), holding `describe.sequential(title)`, whose `tests` run in order and
 * are given a fresh database seeded by `options.seed`, the real `verq dashboard` serving it and
 * the file's one Chromium.
 *
 * The engines' blocks run side by side (each on its own database, dashboard process and browser
 * contexts; the tests of one engine in order), so that the second engine adds little wall time.
 * Tests running concurrently, each asserts with its own context's `expect` (`async ({ expect })`),
 * never the global one, whose `expect.poll` and `expect.soft` need to know the current test.
 * Each engine's dashboard is stopped and its database removed after its tests; the browser after
 * the file's.
 */
export async function describeOnEngines(
  title: string,
  options: DashboardOptions,
  tests: (live: DashboardInChromium) => void,
): Promise<void> {
  afterAll(closeChromium);
  for (const engine of ENGINES) {
    const available = await engineAvailable(engine);
    describe(`[${engine}]`, { concurrent: true, skip: !available }, () => {
      let live: DashboardInChromium | undefined;
      beforeAll(async () => {
        const browsing = sharedChromium();
        // Awaited below, once this engine's dashboard is up; a failed launch is reported there.
        browsing.catch(() => {});
        const own = await serve(engine, options);
        live = { ...own, browser: await browsing };
      }, 120_000);
      afterAll(async () => {
        await live?.dashboard.stop();
        await live?.database.dispose();
      });
      const ready = (): DashboardInChromium => {
        if (live === undefined) throw new Error(`[${engine}] the dashboard is not ready: its beforeAll failed`);
        return live;
      };
      describe.sequential(title, () =>
        tests({
          engine,
          get database() {
            return ready().database;
          },
          get dashboard() {
            return ready().dashboard;
          },
          get browser() {
            return ready().browser;
          },
        }),
      );
    });
  }
}
