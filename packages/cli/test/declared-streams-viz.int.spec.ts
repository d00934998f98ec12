import { readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { VERQ_MACHINE_NAMES, machineGraph, machineMermaid } from "@verq/core";
import { createTestDatabase, tempDir } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ticketMachine } from "../../core/test/ticket-stream.ts";
import { EXIT } from "../src/exit-codes.ts";
import { runInProcess } from "./support/cli-sandbox.ts";
import { NO_STREAMS, TICKETS, verqWithTsx } from "./support/declared-streams.ts";
import type { AnyMachine } from "./support/machine-from-json.ts";

/*
 * `verq viz --streams`: the machine of each declared stream type written beside verq's own, in
 * DIR/streams/, in the same three formats, and drawn in `--docs` blocks; and a bad `--streams`
 * module, refused by every command that takes one before it opens a store or writes a file.
 */

const CORE_MODULES = fileURLToPath(new URL("../../core/node_modules", import.meta.url));

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function scratch(): string {
  const dir = tempDir("verq-viz-streams-");
  cleanups.push(dir.remove);
  return dir.path;
}

interface Printed {
  readonly files: { machine: string; kind: string; path: string; declared?: boolean }[];
}

describe("verq viz --streams", () => {
  it("writes the declared machine's .json, .mmd and .machine.ts into DIR/streams/, and verq's own as before", async () => {
    const out = join(scratch(), "viz");
    const run = await runInProcess(["viz", "--out", out, "--streams", TICKETS, "--json"]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.out) as Printed;
    const own = VERQ_MACHINE_NAMES.flatMap((m) => [`${m}.json`, `${m}.mmd`, `${m}.machine.ts`]);
    expect(readdirSync(out).sort()).toEqual([...own, "streams"].sort());
    expect(readdirSync(join(out, "streams")).sort()).toEqual(["ticket.json", "ticket.machine.ts", "ticket.mmd"]);
    expect(printed.files.filter((f) => f.declared === true)).toEqual([
      { machine: "ticket", kind: "json", path: join(out, "streams", "ticket.json"), declared: true },
      { machine: "ticket", kind: "mermaid", path: join(out, "streams", "ticket.mmd"), declared: true },
      { machine: "ticket", kind: "source", path: join(out, "streams", "ticket.machine.ts"), declared: true },
    ]);
    expect(printed.files.filter((f) => f.declared !== true).map((f) => f.path)).toEqual(own.map((name) => join(out, name)));

    const json = JSON.parse(readFileSync(join(out, "streams", "ticket.json"), "utf8")) as { id: string; states: object };
    expect(json.id).toBe("ticket");
    expect(Object.keys(json.states)).toEqual(["new", "open", "taken", "closed"]);
    const mermaid = readFileSync(join(out, "streams", "ticket.mmd"), "utf8");
    expect(mermaid).toMatch(/^stateDiagram-v2\n/);
    expect(mermaid).toBe(machineMermaid(machineGraph(ticketMachine)));
    const source = readFileSync(join(out, "streams", "ticket.machine.ts"), "utf8");
    expect(source).toContain(`the machine is the service's, stream type "ticket".`);
    expect(source).not.toContain("verq's");
  });

  it("the declared .machine.ts, imported, is a machine with the original's states, transitions and guards", async () => {
    const out = join(scratch(), "viz");
    expect((await runInProcess(["viz", "--out", out, "--streams", TICKETS])).code).toBe(0);
    // The generated module imports xstate, found through a link as a user's project would have it.
    symlinkSync(CORE_MODULES, join(out, "streams", "node_modules"), "dir");
    const module = (await import(pathToFileURL(join(out, "streams", "ticket.machine.ts")).href)) as Record<string, AnyMachine>;
    expect(machineGraph(module.ticketMachine as AnyMachine)).toEqual(machineGraph(ticketMachine));
  });

  it("the bundled bin, as a child process, writes the same files from the module it imports", async () => {
    const out = join(scratch(), "viz");
    const run = await verqWithTsx(["viz", "--out", out, "--streams", TICKETS]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`wrote ${join(out, "streams", "ticket.mmd")}\n`);
    expect(readFileSync(join(out, "streams", "ticket.mmd"), "utf8")).toBe(machineMermaid(machineGraph(ticketMachine)));
    const json = JSON.parse(readFileSync(join(out, "streams", "ticket.json"), "utf8")) as { initial: unknown };
    expect(json.initial).toBe("new");
  });

  it("--docs regenerates a block that names the declared machine; without --streams the name is refused", async () => {
    const docs = join(scratch(), "README.md");
    writeFileSync(docs, "# Tickets\n\n<!-- verq:viz ticket -->\n<!-- /verq:viz ticket -->\n");
    const refused = await runInProcess(["viz", "--docs", docs]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`names "ticket", not a machine (${VERQ_MACHINE_NAMES.join(", ")})`);
    const stale = await runInProcess(["viz", "--docs", docs, "--streams", TICKETS, "--check"]);
    expect([stale.code, stale.out]).toEqual([1, `${docs}: ticket stale (refresh it with verq viz --docs)\n`]);
    expect((await runInProcess(["viz", "--docs", docs, "--streams", TICKETS])).out).toBe(`${docs}: ticket rewritten\n`);
    expect(readFileSync(docs, "utf8")).toContain(`\`\`\`mermaid\n${machineMermaid(machineGraph(ticketMachine))}\`\`\``);
    expect(readFileSync(docs, "utf8")).toContain("| new | `open` | `!hasTitle` | `empty-title` |");
    const fresh = await runInProcess(["viz", "--docs", docs, "--streams", TICKETS, "--check"]);
    expect([fresh.code, fresh.out]).toEqual([0, `${docs}: ticket up to date\n`]);
  });
});

describe("a bad --streams is a usage error, before any store is opened or file written", () => {
  /** Each command that takes --streams, with a store (or folder) that must not appear. */
  const lines = (dir: string): Record<string, string[]> => ({
    events: ["events", "--db", join(dir, "verq.sqlite")],
    check: ["check", "--db", join(dir, "verq.sqlite")],
    viz: ["viz", "--out", join(dir, "viz")],
  });

  it.each([
    ["a file that does not exist", (dir: string) => join(dir, "nope.mjs"), /--streams: no module at ".*nope\.mjs"/],
    ["a folder", (dir: string) => dir, /--streams: ".*" is not a file/],
    ["a module that exports no definition", () => NO_STREAMS, /--streams: ".*no-streams\.ts" exports no stream definition/],
    ["an empty path", () => "", /--streams must name a file or folder/],
  ])("%s: exit 2 VERQ_INVALID_ARGUMENT with the command's usage line, nothing created", async (_, streams, message) => {
    const dir = scratch();
    for (const [name, line] of Object.entries(lines(dir))) {
      const run = await runInProcess([...line, "--streams", streams(dir)]);
      expect(run.code, name).toBe(EXIT.usage);
      expect(run.err, name).toMatch(/^verq: VERQ_INVALID_ARGUMENT: /);
      expect(run.err, name).toMatch(message);
      expect(run.err, name).toContain(`usage: verq ${name} [options]`);
      expect(readdirSync(dir), name).toEqual([]);
    }
  });

  it("a module that cannot be loaded, or a bad VERQ_STREAMS, is refused by the bin too, and an existing store is not read", async () => {
    const dir = scratch();
    const broken = join(dir, "broken.mjs");
    writeFileSync(broken, "export const x = ;\n");
    const database = await createTestDatabase("sqlite");
    cleanups.push(() => database.dispose());
    await (await database.open()).close();
    const before = { files: readdirSync(dirname(database.db)), bytes: readFileSync(database.db) };
    const run = await verqWithTsx(["check", "--db", database.db, "--streams", broken, "--json"]);
    expect(run.status).toBe(EXIT.usage);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("VERQ_INVALID_ARGUMENT");
    expect(error.message).toMatch(/^--streams: cannot load ".*broken\.mjs" \(.+\)/);
    const env = await verqWithTsx(["events", "--db", database.db], { VERQ_STREAMS: join(dir, "nope.mjs") });
    expect(env.status).toBe(EXIT.usage);
    expect(env.stderr).toMatch(/--streams: no module at ".*nope\.mjs"/);
    expect(readdirSync(dirname(database.db))).toEqual(before.files);
    expect(readFileSync(database.db).equals(before.bytes)).toBe(true);
  });
});
