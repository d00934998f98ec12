// P1 (installable): the packages as a service gets them. Each library package is built and packed
// with pnpm's own `pack`, the tarballs are installed with plain npm into a fresh project outside
// the repository, and that project uses them with plain `node` and `tsc` (no tsx, no workspace,
// no source condition). A second project installs only @verq/core, @verq/store and
// @verq/adapters, and mounts the receiver without the optional peers or the CLI. publint and
// arethetypeswrong check every packed tarball.
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, engineAvailable } from "@verq/testing";

const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURE = path.join(import.meta.dirname, "consumer");
const BIN = path.join(ROOT, "node_modules", ".bin");
/** The library packages, in dependency order (each one's build needs the previous ones' `dist`). */
const PACKAGES = ["core", "store", "adapters", "cli"] as const;
/** What a service that mounts one edge installs: no @verq/cli, no optional peer. */
const LEAN_PACKAGES = ["core", "store", "adapters"] as const;
/** The entry points of @verq/adapters besides its root, one per edge. */
const ADAPTERS_ENTRY_POINTS = [
  "./http",
  "./relay",
  "./files",
  "./metrics",
  "./dashboard",
  "./logging",
  "./operators",
  "./failpoints",
  "./constants",
] as const;
/** What the CLI and two edges need and a service that mounts the receiver must not have to install. */
const NOT_FOR_THE_RECEIVER = ["commander", "cli-progress", "prom-client", "@dagrejs/dagre"] as const;
const TYPES_NODE = "@types/node@20";

/** The environment of a plain Node process: no source condition, no test runner settings. */
function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  return env;
}

function run(command: string, args: readonly string[], cwd: string, timeoutMs = 240_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: plainEnv(), encoding: "utf8", timeout: timeoutMs });
}

function mustRun(command: string, args: readonly string[], cwd: string, timeoutMs?: number): string {
  const result = run(command, args, cwd, timeoutMs);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * better-sqlite3 installs through prebuild-install, which fetches a prebuilt binary for this Node
 * from the project's releases and compiles SQLite from source (a minute and a half on two cores)
 * when it cannot. The releases cannot be reached from here, so the workspace's own binary of the
 * same version is offered as a local prebuild, the way prebuild-install looks for one first
 * (`npm_config_better_sqlite3_local_prebuilds`). The install scripts still run; when npm resolves
 * another version the file name does not match and it compiles as before.
 */
function localSqlitePrebuild(folder: string): NodeJS.ProcessEnv {
  const requireFromStore = createRequire(path.join(ROOT, "packages", "store", "package.json"));
  const manifestPath = requireFromStore.resolve("better-sqlite3/package.json");
  const { version } = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { version: string };
  const packageDir = path.dirname(manifestPath);
  const binary = path.join("build", "Release", "better_sqlite3.node");
  if (!fs.existsSync(path.join(packageDir, binary))) return {};
  fs.mkdirSync(folder, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync("tar", ["-czf", path.join(folder, name), "-C", packageDir, binary]);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

const postgresUp = await engineAvailable("postgres");

let work: string;
let tarballs: Record<(typeof PACKAGES)[number], string>;
let consumer: string;
let lean: string;

/** Installs `names`' tarballs (and @types/node) with plain npm into a copy of the fixture at `folder`. */
function installConsumer(folder: string, names: readonly (typeof PACKAGES)[number][]): void {
  fs.cpSync(FIXTURE, folder, { recursive: true });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...names.map((n) => tarballs[n]), TYPES_NODE], {
    cwd: folder,
    env: { ...plainEnv(), ...localSqlitePrebuild(path.join(work, "prebuilds")) },
    stdio: "pipe",
    timeout: 480_000,
  });
}

/** The npm packages among the module URLs of `log` (`fastify`, `@fastify/error`, …), by name. */
function packagesLoaded(log: string): Set<string> {
  const names = fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:"))
    .map((url) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(new URL(url).pathname)?.[1]);
  return new Set(names.filter((name) => name !== undefined));
}

const RECORDER = path.join(ROOT, "packages", "cli", "test", "support", "record-modules.mjs");

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "verq-consumer-"));
  const packs = path.join(work, "packs");
  fs.mkdirSync(packs);
  const found: Partial<Record<(typeof PACKAGES)[number], string>> = {};
  for (const name of PACKAGES) {
    // `pnpm pack` runs the package's `prepack` (its build) and writes `verq-<name>-<version>.tgz`.
    const out = mustRun("npx", ["-y", "pnpm@10", "pack", "--pack-destination", packs], path.join(ROOT, "packages", name));
    const tarball = out
      .trim()
      .split("\n")
      .reverse()
      .find((line) => line.endsWith(".tgz"));
    if (tarball === undefined || !fs.existsSync(tarball)) throw new Error(`no tarball for @verq/${name}:\n${out}`);
    found[name] = tarball;
  }
  tarballs = found as typeof tarballs;
  consumer = path.join(work, "service");
  installConsumer(consumer, PACKAGES);
  lean = path.join(work, "receiver-only");
  installConsumer(lean, LEAN_PACKAGES);
}, 900_000);

afterAll(() => {
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

describe("P1: the packed packages in a project outside the workspace", () => {
  it("ships only built files: dist with JavaScript, declarations and source maps, no sources, no tests", () => {
    for (const name of PACKAGES) {
      const listing = execFileSync("tar", ["-tzf", tarballs[name]], { encoding: "utf8" }).trim().split("\n");
      expect(listing).toContain("package/dist/index.js");
      expect(listing).toContain("package/dist/index.d.ts");
      expect(listing).toContain("package/dist/index.js.map");
      expect(listing.filter((f) => /\/(src|test)\//.test(f) || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toEqual([]);
      const manifest = JSON.parse(
        fs.readFileSync(path.join(consumer, "node_modules", "@verq", name, "package.json"), "utf8"),
      ) as {
        exports: Record<string, Record<string, string>>;
        dependencies?: Record<string, string>;
      };
      for (const [entry, conditions] of Object.entries(manifest.exports)) {
        expect(Object.keys(conditions), `@verq/${name} ${entry}`).toEqual(["types", "default"]);
        expect(listing, `@verq/${name} ${entry}`).toContain(`package/${conditions.types?.slice(2)}`);
        expect(listing, `@verq/${name} ${entry}`).toContain(`package/${conditions.default?.slice(2)}`);
      }
      if (name === "adapters") expect(Object.keys(manifest.exports)).toEqual([".", ...ADAPTERS_ENTRY_POINTS]);
      expect(JSON.stringify(manifest.dependencies ?? {})).not.toContain("workspace:");
    }
  });

  function expectOneJobDone(out: string): void {
    const result = JSON.parse(out) as {
      token: number;
      accepted: boolean;
      stats: { total: number; byState: Record<string, number> };
    };
    expect(result.token).toBe(1);
    expect(result.accepted).toBe(true);
    expect(result.stats.total).toBe(1);
    expect(result.stats.byState).toEqual({ pending: 0, leased: 0, done: 1, dead: 0 });
  }

  it("(a) a plain node ESM script opens a SQLite file, enqueues, claims, finishes and prints stats()", () => {
    expectOneJobDone(mustRun(process.execPath, ["enqueue-claim-finish.mjs", path.join(consumer, "jobs.sqlite")], consumer));
  });

  it.skipIf(!postgresUp)("(a) the same script on PostgreSQL: the installed store brings its driver", async () => {
    const database = await createTestDatabase("postgres");
    try {
      expectOneJobDone(mustRun(process.execPath, ["enqueue-claim-finish.mjs", database.db], consumer));
    } finally {
      await database.dispose();
    }
  });

  it("(a) every entry point loads in a plain node ESM script, with the exports a service reaches for", () => {
    const found = JSON.parse(mustRun(process.execPath, ["every-entry-point.mjs"], consumer)) as Record<string, string[]>;
    expect(Object.keys(found)).toEqual([
      "@verq/core",
      "@verq/store",
      "@verq/adapters",
      ...ADAPTERS_ENTRY_POINTS.map((entry) => `@verq/adapters${entry.slice(1)}`),
      "@verq/cli",
    ]);
    // The root of @verq/adapters is the union of its entry points, for services written before them.
    const union = new Set(ADAPTERS_ENTRY_POINTS.flatMap((entry) => found[`@verq/adapters${entry.slice(1)}`] ?? []));
    expect(found["@verq/adapters"]).toEqual([...union].sort());
  });

  it("(d) a service that installs @verq/adapters without @verq/cli gets no commander, cli-progress, prom-client or dagre", () => {
    for (const name of NOT_FOR_THE_RECEIVER) expect(fs.existsSync(path.join(lean, "node_modules", name)), name).toBe(false);
    for (const name of LEAN_PACKAGES) expect(fs.existsSync(path.join(lean, "node_modules", "@verq", name)), name).toBe(true);
  });

  it("(d) and there the receiver from @verq/adapters/http answers a keyed request once, and its repeat from the receipt", () => {
    const result = JSON.parse(mustRun(process.execPath, ["mount-receiver.mjs", path.join(lean, "receiver.sqlite")], lean)) as {
      statuses: number[];
      bodies: string[];
      replayed: string;
      effects: number;
    };
    expect(result).toEqual({
      statuses: [200, 200],
      bodies: ['{"stocked":1}', '{"stocked":1}'],
      replayed: "true",
      effects: 1,
    });
  });

  it("(d) importing @verq/adapters/http in a fresh process loads no commander, cli-progress, prom-client or dagre, though they are installed", () => {
    const log = path.join(work, "modules-http.log");
    const result = spawnSync(
      process.execPath,
      ["--import", RECORDER, "--input-type=module", "-e", 'await import("@verq/adapters/http");'],
      { cwd: consumer, env: { ...plainEnv(), VERQ_MODULE_LOG: log }, encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    const loaded = packagesLoaded(log);
    console.log(`[consumer] @verq/adapters/http loads: ${[...loaded].sort().join(" ")}`);
    expect(loaded.has("@verq/adapters")).toBe(true);
    expect(loaded.has("fastify")).toBe(true);
    for (const name of NOT_FOR_THE_RECEIVER) {
      expect(fs.existsSync(path.join(consumer, "node_modules", name)), `${name} installed`).toBe(true);
      expect(loaded.has(name), `${name} loaded`).toBe(false);
    }
    // Nor the relay's HTTP client or the file queue's validator.
    for (const name of ["undici", "zod"]) expect(loaded.has(name), name).toBe(false);
  });

  it("(b) tsc --noEmit type-checks a consumer file that uses the public types, with moduleResolution nodenext", () => {
    const result = run(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"],
      consumer,
    );
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("(b) and tsc fails on a misuse of those types, so the check above is real", () => {
    fs.writeFileSync(
      path.join(consumer, "misuse.ts"),
      'import { JobQueue } from "@verq/store";\nexport const wrong = (q: JobQueue) => q.finish("id", "not a token", "ok");\n',
    );
    const result = run(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--module", "nodenext", "--strict", "misuse.ts"],
      consumer,
    );
    expect(result.status).not.toBe(0);
    expect(result.stdout).toContain("not assignable to parameter of type 'number'");
  });

  it("(c) the installed `verq` bin is @verq/cli's, and runs the compiled CLI with plain node: --help exits 0", () => {
    expect(fs.realpathSync(path.join(consumer, "node_modules", ".bin", "verq"))).toBe(
      fs.realpathSync(path.join(consumer, "node_modules", "@verq", "cli", "dist", "bin.js")),
    );
    const bin = path.join(consumer, "node_modules", ".bin", "verq");
    const result = run(bin, ["--help"], consumer);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Usage: verq");
    for (const area of ["jobs", "relay", "files", "receiver"]) expect(result.stdout).toContain(area);
    // --version reads the installed package's own manifest, beside the bundled bin.
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "packages", "cli", "package.json"), "utf8")) as {
      version: string;
    };
    expect(run(bin, ["--version"], consumer)).toMatchObject({ status: 0, stdout: `${version}\n` });
  });

  it("(c) the installed bin (one bundle per command area) finds its drivers: jobs enqueue and jobs stats on SQLite, and on PostgreSQL", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "verq");
    const databases = [path.join(consumer, "cli.sqlite")];
    const postgres = postgresUp ? await createTestDatabase("postgres") : undefined;
    if (postgres !== undefined) databases.push(postgres.db);
    try {
      for (const db of databases) {
        const enqueued = run(bin, ["jobs", "enqueue", "--db", db, "--id", "cli-1", "--payload", "{}"], consumer);
        expect(enqueued.stderr).toBe("");
        expect(enqueued.status).toBe(0);
        const stats = run(bin, ["jobs", "stats", "--db", db, "--json"], consumer);
        expect(stats.status, stats.stderr).toBe(0);
        expect((JSON.parse(stats.stdout) as { byState: Record<string, number> }).byState).toEqual({
          pending: 1,
          leased: 0,
          done: 0,
          dead: 0,
        });
      }
    } finally {
      await postgres?.dispose();
    }
  });

  it("(c) the installed bin loads a command's chunks only when it runs: --help loads no store, kysely, xstate or driver; jobs stats no fastify, undici or zod", () => {
    const bin = fs.realpathSync(path.join(consumer, "node_modules", ".bin", "verq"));
    /** What one start of the bin loaded: the npm packages, and the bundled sources inside the bin's own files. */
    const loads = (name: string, args: readonly string[]): { packages: Set<string>; bundled: string } => {
      const log = path.join(work, `modules-${name}.log`);
      const result = spawnSync(process.execPath, ["--import", RECORDER, bin, ...args], {
        cwd: consumer,
        env: { ...plainEnv(), VERQ_MODULE_LOG: log },
        encoding: "utf8",
      });
      expect(result.status, result.stderr).toBe(0);
      const files = fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((url) => url.startsWith("file:"))
        .map((url) => new URL(url).pathname);
      const names = files.map((file) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]);
      const own = [...new Set(files.filter((file) => file.includes("/@verq/cli/dist/")))];
      return {
        packages: new Set(names.filter((name) => name !== undefined)),
        bundled: own.map((file) => fs.readFileSync(file, "utf8")).join("\n"),
      };
    };
    const help = loads("help", ["--help"]);
    expect([...help.packages].filter((name) => name !== "@verq/cli").sort()).toEqual(["commander"]);
    for (const marker of ["/kysely/dist/", "/xstate/dist/", "/store/src/"]) expect(help.bundled).not.toContain(marker);
    // A command that only reads needs a store that is there: `verq init` makes it.
    const created = run(bin, ["init", "--db", path.join(consumer, "modules.sqlite")], consumer);
    expect(created.status, created.stderr).toBe(0);
    const stats = loads("stats", ["jobs", "stats", "--db", path.join(consumer, "modules.sqlite")]);
    for (const marker of ["/kysely/dist/", "/store/src/"]) expect(stats.bundled).toContain(marker);
    expect(stats.packages.has("better-sqlite3")).toBe(true);
    for (const name of ["fastify", "undici", "zod", "pg"]) expect(stats.packages.has(name), name).toBe(false);
  });

  it("publint and arethetypeswrong (ESM only) report no problem on any packed package", () => {
    for (const name of PACKAGES) {
      const lint = run(path.join(BIN, "publint"), ["run", "--strict", tarballs[name]], ROOT);
      expect(lint.status, `publint @verq/${name}:\n${lint.stdout}${lint.stderr}`).toBe(0);
      expect(lint.stdout).toContain("All good!");
      const types = run(path.join(BIN, "attw"), ["--profile", "esm-only", "--format", "ascii", tarballs[name]], ROOT);
      expect(types.status, `attw @verq/${name}:\n${types.stdout}${types.stderr}`).toBe(0);
    }
  });
});
