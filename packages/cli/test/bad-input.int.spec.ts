import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@verq/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/main.ts";
import { commandPath, leafCommands } from "../src/usage.ts";
import { fcParams } from "../../adapters/test/support/fc-params.ts";
import { ARGUMENT_KINDS, BAD_VALUES, HUGE, OPTION_KINDS, type BadKind } from "./support/bad-values.ts";
import { closedPort, copySandbox, runInProcess, seedSandbox, snapshot, type CliResult } from "./support/cli-sandbox.ts";

/*
 * The bad-input corpus of the CLI: every command of the program (enumerated from commander, so a
 * new command without a base case fails here), run in this process with wrong, missing,
 * repeated, huge and NUL-carrying arguments. Each must exit 2 with `verq: VERQ_*: …` (or the
 * JSON error with --json) and the command's usage line on stderr, and change nothing: the
 * sandbox (a SQLite store, a file queue, a profile) has the same files with the same bytes and
 * mtimes, and no database, queue or folder is created where the command would write one.
 */

/** A valid command line of each command: positionals, then options (a flag and its value, or a lone flag). */
interface Base {
  readonly args: readonly string[];
  readonly options: readonly (readonly [string, string?])[];
  /** The command serves until SIGINT: its base run is stopped by one. */
  readonly serves?: boolean;
}

const DB = "@DB";
const BASES: Record<string, Base> = {
  init: { args: [], options: [["--db", DB]] },
  "jobs enqueue": {
    args: [],
    options: [
      ["--db", DB],
      ["--id", "new-1"],
      ["--payload", "{}"],
    ],
  },
  "jobs work": { args: [], options: [["--db", DB], ["--target", "@TARGET"], ["--once"]] },
  "jobs finish": {
    args: ["j1"],
    options: [
      ["--db", DB],
      ["--token", "1"],
      ["--outcome", "ok"],
    ],
  },
  "jobs stats": { args: [], options: [["--db", DB]] },
  "jobs dead": { args: [], options: [["--db", DB]] },
  "jobs list": {
    args: [],
    options: [
      ["--db", DB],
      ["--state", "pending"],
    ],
  },
  "jobs redrive": {
    args: ["j1"],
    options: [
      ["--db", DB],
      ["--note", "OPS-1"],
    ],
  },
  "jobs prune": {
    args: [],
    options: [
      ["--db", DB],
      ["--done-older-than", "7d"],
    ],
  },
  "jobs cancel": {
    args: ["j1"],
    options: [
      ["--db", DB],
      ["--note", "OPS-1"],
    ],
  },
  "jobs show": { args: ["j1"], options: [["--db", DB]] },
  "queues limit": {
    args: ["q1"],
    options: [
      ["--db", DB],
      ["--max-leased", "5"],
    ],
  },
  "receiver serve": {
    args: [],
    options: [
      ["--db", DB],
      ["--port", "0"],
    ],
    serves: true,
  },
  "relay serve": {
    args: [],
    options: [
      ["--db", DB],
      ["--core", "@TARGET"],
      ["--port", "0"],
    ],
    serves: true,
  },
  "relay resolve": {
    args: [],
    options: [
      ["--db", DB],
      ["--core", "@TARGET"],
      ["--min-age", "1m"],
    ],
  },
  "relay reprocess": {
    args: [],
    options: [
      ["--db", DB],
      ["--core", "@TARGET"],
      ["--max-attempts", "3"],
    ],
  },
  "relay purge": {
    args: [],
    options: [
      ["--db", DB],
      ["--retention", "2d"],
      ["--resend-window", "1d"],
    ],
  },
  "relay show": { args: ["g1"], options: [["--db", DB]] },
  "relay stats": { args: [], options: [["--db", DB]] },
  "files init": { args: ["@NEW"], options: [] },
  "files consume": { args: ["@ROOT"], options: [["--db", DB]] },
  "files errors": { args: ["@ROOT"], options: [["--db", DB]] },
  "files dups": { args: [], options: [["--db", DB]] },
  "files order-check": { args: [], options: [["--db", DB]] },
  "files lag": { args: ["@ROOT", "10"], options: [] },
  "files replay": { args: ["@ROOT", "bad.json"], options: [] },
  "files schema": { args: ["@ROOT"], options: [] },
  metrics: {
    args: [],
    options: [
      ["--db", DB],
      ["--port", "0"],
    ],
    serves: true,
  },
  viz: { args: [], options: [["--out", "@NEW"]] },
  check: { args: [], options: [["--db", DB]] },
  dashboard: {
    args: [],
    options: [
      ["--db", DB],
      ["--port", "0"],
    ],
    serves: true,
  },
  events: { args: [], options: [["--db", DB]] },
  "schedules add": {
    args: ["s1"],
    options: [
      ["--db", DB],
      ["--cron", "* * * * *"],
    ],
  },
  "schedules list": { args: [], options: [["--db", DB]] },
  "schedules remove": { args: ["s1"], options: [["--db", DB]] },
  "schedules run": { args: [], options: [["--db", DB]] },
};

/** One bad command line: a base changed in one way. */
interface Mutation {
  readonly path: string;
  readonly change:
    | { readonly type: "unknown-option"; readonly flag: string }
    | { readonly type: "extra-argument"; readonly value: string }
    | { readonly type: "drop-required"; readonly name: string }
    | { readonly type: "repeat-conflicting"; readonly flag: string }
    | { readonly type: "nul"; readonly index: number }
    | { readonly type: "value-missing"; readonly flag: string }
    | { readonly type: "bad-option"; readonly flag: string; readonly value: string }
    | { readonly type: "bad-argument"; readonly index: number; readonly value: string };
  readonly json: boolean;
  /** `--db` names a file that does not exist: the case must not create it. */
  readonly freshDb: boolean;
}

const program = buildProgram({ out: () => {}, err: () => {} }, () => {});
const LEAVES = leafCommands(program).map((command) => ({ command, path: commandPath(command).replace(/^verq /, "") }));
const commandAt = (path: string) => LEAVES.find((l) => l.path === path)?.command;

const optionKind = (path: string, flag: string): BadKind | undefined => OPTION_KINDS[`${path} ${flag}`] ?? OPTION_KINDS[flag];
const valueOptions = (path: string) =>
  (commandAt(path)?.options ?? []).filter((o) => (o.required || o.optional) && o.long !== undefined).map((o) => o.long ?? "");
const argumentNames = (path: string) => (commandAt(path)?.registeredArguments ?? []).map((a) => a.name());

/** The command line of `base` with its placeholders filled in. */
function commandLine(path: string, base: Base, places: Record<string, string>): string[] {
  const fill = (text: string) => places[text] ?? text;
  return [
    ...path.split(" "),
    ...base.args.map(fill),
    ...base.options.flatMap(([flag, value]) => (value === undefined ? [flag] : [flag, fill(value)])),
  ];
}

/** The bad command line of `m`. */
function mutate(m: Mutation, places: Record<string, string>): string[] {
  const base = BASES[m.path];
  if (base === undefined) throw new Error(`no base for ${m.path}`);
  const c = m.change;
  let args = [...base.args];
  let options = base.options.map(([flag, value]) => [flag, value] as [string, string?]);
  const tail: string[] = [];
  switch (c.type) {
    case "unknown-option":
      tail.push(c.flag, "1");
      break;
    case "extra-argument":
      tail.push(c.value);
      break;
    case "drop-required":
      if (c.name.startsWith("--")) options = options.filter(([flag]) => flag !== c.name);
      else args = args.slice(0, argumentNames(m.path).indexOf(c.name));
      break;
    case "repeat-conflicting": {
      const given = options.find(([flag]) => flag === c.flag)?.[1];
      tail.push(c.flag, `${given ?? ""}-other`);
      if (given === undefined) tail.push(c.flag, "another");
      break;
    }
    case "value-missing":
      options = options.filter(([flag]) => flag !== c.flag);
      tail.push(c.flag);
      break;
    case "bad-option":
      options = [...options.filter(([flag]) => flag !== c.flag), [c.flag, c.value]];
      break;
    case "bad-argument":
      args[c.index] = c.value;
      break;
    case "nul":
      break;
  }
  const line = [...commandLine(m.path, { args, options }, places), ...tail, ...(m.json ? ["--json"] : [])];
  if (c.type === "nul") {
    const at = m.path.split(" ").length + (c.index % Math.max(1, line.length - m.path.split(" ").length));
    line[at] = `${line[at] ?? ""}\0`;
  }
  return line;
}

/** Every way to break the command at `path`, as an arbitrary. */
function mutations(path: string): fc.Arbitrary<Mutation["change"]> {
  const command = commandAt(path);
  const known = new Set(command?.options.map((o) => o.long));
  const required = [
    ...(command?.options.filter((o) => o.mandatory).map((o) => o.long ?? "") ?? []),
    ...(command?.registeredArguments.filter((a) => a.required).map((a) => a.name()) ?? []),
  ];
  const given = (BASES[path]?.options ?? []).filter(([, value]) => value !== undefined).map(([flag]) => flag);
  const values = valueOptions(path);
  const args = argumentNames(path);
  const choices: fc.Arbitrary<Mutation["change"]>[] = [
    fc
      .stringMatching(/^--[a-z][a-z-]{0,30}$/)
      .filter((flag) => !known.has(flag) && flag !== "--help")
      .map((flag) => ({ type: "unknown-option" as const, flag })),
    fc.constantFrom("stray", "", "-", "--\u00a0").map((value) => ({ type: "extra-argument" as const, value })),
    fc.nat(20).map((index) => ({ type: "nul" as const, index })),
  ];
  if (required.length > 0) choices.push(fc.constantFrom(...required).map((name) => ({ type: "drop-required" as const, name })));
  if (given.length > 0) {
    choices.push(fc.constantFrom(...given).map((flag) => ({ type: "repeat-conflicting" as const, flag })));
    choices.push(fc.constantFrom(...given).map((flag) => ({ type: "value-missing" as const, flag })));
  }
  if (values.length > 0) {
    choices.push(
      fc
        .constantFrom(...values)
        .chain((flag) =>
          fc
            .constantFrom(...BAD_VALUES[optionKind(path, flag) ?? "id"])
            .map((value) => ({ type: "bad-option" as const, flag, value })),
        ),
    );
  }
  if (args.length > 0 && (BASES[path]?.args.length ?? 0) > 0) {
    choices.push(
      fc
        .nat(args.length - 1)
        .chain((index) =>
          fc
            .constantFrom(...BAD_VALUES[ARGUMENT_KINDS[`${path} ${args[index] ?? ""}`] ?? "id"])
            .map((value) => ({ type: "bad-argument" as const, index, value })),
        ),
    );
  }
  return fc.oneof(...choices);
}

describe("the CLI's bad-input corpus (in process)", () => {
  const work = tempDir("verq-cli-corpus-");
  const template = join(work.path, "template");
  let target = "";
  let cases = 0;

  beforeAll(async () => {
    await seedSandbox(template);
    target = `http://127.0.0.1:${await closedPort()}/`;
  });
  afterAll(() => work.remove());

  /** A sandbox of its own for one case, and the placeholders of the command line in it. */
  const sandbox = (name: string, freshDb: boolean) => {
    const dir = join(work.path, name);
    copySandbox(template, dir);
    const places = {
      "@DB": join(dir, freshDb ? "fresh.sqlite" : "verq.sqlite"),
      "@ROOT": join(dir, "queue"),
      "@NEW": join(dir, "new"),
      "@TARGET": target,
      "@PROFILE": join(dir, "profile.json"),
    };
    return { dir, places };
  };

  /** Runs one bad command line and checks exit 2, the code, the usage line, and that nothing changed. */
  async function expectRefused(path: string, line: string[], dir: string, json: boolean): Promise<void> {
    const before = snapshot(dir);
    // From inside the sandbox, so that a file written at a relative path is seen by the snapshot.
    const cwd = process.cwd();
    process.chdir(dir);
    const result = await runInProcess(line).finally(() => process.chdir(cwd));
    const shown = JSON.stringify(line.map((a) => (a.length > 100 ? `${a.slice(0, 40)}…(${a.length})` : a)));
    expect({ line: shown, code: result.code }).toEqual({ line: shown, code: 2 });
    expect(result.err, shown).toMatch(new RegExp(`^usage: verq ${path} `, "m"));
    if (json) {
      const error = (JSON.parse(lastLine(result.out)) as { error?: { code?: string } }).error;
      expect(error?.code, shown).toMatch(/^VERQ_/);
    } else expect(result.err, shown).toMatch(/^verq: VERQ_[A-Z_]+: /m);
    expect(snapshot(dir), shown).toEqual(before);
    expect(existsSync(join(dir, "fresh.sqlite")), shown).toBe(false);
    expect(existsSync(join(dir, "new")), shown).toBe(false);
    cases++;
  }

  it("has a base command line for every command, and a bad value for every option and argument", () => {
    expect(LEAVES.map((l) => l.path).filter((p) => BASES[p] === undefined)).toEqual([]);
    const missing = LEAVES.flatMap(({ path }) => [
      ...valueOptions(path).filter((flag) => optionKind(path, flag) === undefined && flag !== "--log-level"),
      ...argumentNames(path)
        .filter((name) => ARGUMENT_KINDS[`${path} ${name}`] === undefined)
        .map((name) => `${path} <${name}>`),
    ]);
    expect(missing).toEqual([]);
  });

  it("runs every base command line without a usage error (so each bad case is bad because of its change)", async () => {
    for (const { path } of LEAVES) {
      const base = BASES[path];
      if (base === undefined) continue;
      const { places } = sandbox(`base-${path.replace(/ /g, "-")}`, false);
      const result =
        base.serves === true
          ? await runUntilServing(commandLine(path, base, places))
          : await runInProcess(commandLine(path, base, places));
      expect(result.code, `${path}: ${result.err}`).not.toBe(2);
    }
  });

  it("replays the kept cases of corpus/ (each found a bug once)", async () => {
    const dir = join(import.meta.dirname, "corpus");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const kept = JSON.parse(readFileSync(join(dir, file), "utf8")) as { path: string; args: string[]; freshDb?: boolean };
      const { dir: box, places } = sandbox(`kept-${file}`, kept.freshDb === true);
      const fills = Object.entries({ ...places, "@HUGE": HUGE, "@NUL": "\0" });
      const line = kept.args.map((a) => fills.reduce((text, [key, value]) => text.split(key).join(value), a));
      await expectRefused(kept.path, line, box, kept.args.includes("--json"));
    }
  });

  it("refuses generated bad command lines of every command (fast-check, time-boxed)", async () => {
    const arbitrary = fc
      .constantFrom(...LEAVES.map((l) => l.path))
      .chain((path) =>
        fc.record({ path: fc.constant(path), change: mutations(path), json: fc.boolean(), freshDb: fc.boolean() }),
      );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(arbitrary, async (m) => {
        const { dir, places } = sandbox(`case-${n++}`, m.freshDb);
        const line = mutate(m, places);
        // A NUL byte may land in --json itself: then the command line asks for text.
        await expectRefused(m.path, line, dir, line.includes("--json"));
      }),
      fcParams("cli-bad-input", 250, 120_000),
    );
    console.log(`[corpus] cli: ${cases} bad command lines refused over ${LEAVES.length} commands`);
  });
});

const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

/** Runs a serving command in this process, stops it with SIGINT once it printed its address, and returns its result. */
async function runUntilServing(line: string[]): Promise<CliResult> {
  let printed = false;
  const { runCli } = await import("../src/main.ts");
  let out = "";
  let err = "";
  const running = runCli(line, {
    out: (t) => {
      out += `${t}\n`;
      printed = true;
    },
    err: (t) => (err += `${t}\n`),
  });
  let settled = false;
  void running.finally(() => (settled = true));
  for (let i = 0; i < 200 && !printed && !settled; i++) await new Promise((r) => setTimeout(r, 25));
  if (!settled) process.emit("SIGINT");
  const code = await running;
  return { code, out, err };
}
