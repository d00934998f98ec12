/**
 * What the event log and each part of the schema cost below verq's code: verq's statement
 * sequence for one lifecycle (enqueue, claim, finish) replayed with raw better-sqlite3, no
 * Kysely, no machine (`replay.ts`, which the bench's 2a and 2b rows run too), on verq's schema as
 * its migrations create it and on variants that each change one part of it, next to the raw
 * baseline's minimal job table (bench/src/scenarios/raw-sqlite.ts). Two shapes: each step its own
 * commit (figure 2a's), and 100 jobs per step and commit (2b's). Backs docs/performance.md's
 * "Where the time goes" and the choice of migration 005 (positions without AUTOINCREMENT).
 *
 *   npx tsx bench/schema-cost/measure.ts [--rounds 3]
 */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openRaw, rawLifecycles } from "../src/scenarios/raw-sqlite.ts";
import { freshFile, lifecycleDdl, migrateVerqSchema, openReplayDb, replayLifecycles } from "./replay.ts";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const rounds = Number(args.rounds);
const file = (name: string): string => path.join(os.tmpdir(), `verq-schema-cost-${name.replace(/[^a-z0-9]+/gi, "-")}.sqlite`);

/** Removes every `check (…)` clause (and a table constraint's `, constraint "name"` before it) from a DDL statement. */
function withoutChecks(ddl: string): string {
  let out = ddl;
  for (let at = out.search(/check\s*\(/i); at !== -1; at = out.search(/check\s*\(/i)) {
    let depth = 0;
    let end = out.indexOf("(", at);
    for (; end < out.length; end++) {
      if (out[end] === "(") depth++;
      else if (out[end] === ")" && --depth === 0) break;
    }
    const before = /,\s*constraint\s+"?\w+"?\s+$/i.exec(out.slice(0, at));
    out = out.slice(0, before === null ? at : at - before[0].length) + out.slice(end + 1);
  }
  return out;
}

/** One schema: verq's as migrated, or with one part changed (`edit` maps its DDL statements). */
interface Variant {
  readonly name: string;
  readonly edit?: (ddl: string[]) => string[];
  /** Without the events' unique constraint, the enqueue's `on conflict` clause has nothing to name. */
  readonly onConflict?: false;
}
const leaveOut = (index: string) => (ddl: string[]) => ddl.filter((s) => !new RegExp(`index "?${index}"? on`, "i").test(s));
const variants: Variant[] = [
  { name: "verq (as migrated)" },
  {
    name: "AUTOINCREMENT positions (001-004)",
    edit: (ddl) => ddl.map((s) => s.replace(/position integer primary key/i, "position integer primary key autoincrement")),
  },
  { name: "jobs without rowid", edit: (ddl) => ddl.map((s) => (/^create table "?jobs"?/i.test(s) ? `${s} without rowid` : s)) },
  { name: "no jobs_dead_since index", edit: leaveOut("jobs_dead_since") },
  { name: "no jobs_ordering_group index", edit: leaveOut("jobs_ordering_group") },
  { name: "no jobs_leased_queue index", edit: leaveOut("jobs_leased_queue") },
  { name: "no jobs_updated index (retention)", edit: leaveOut("jobs_updated") },
  { name: "no check constraints", edit: (ddl) => ddl.map(withoutChecks) },
  {
    name: "no events unique (unsafe: the race arbiter)",
    edit: (ddl) => ddl.map((s) => s.replace(/,\s*constraint\s+"?events_stream_version_unique"?\s+unique\s*\([^)]*\)/i, "")),
    onConflict: false,
  },
];

const migrated = file("migrated");
await migrateVerqSchema(migrated);
const ddl = lifecycleDdl(migrated);

/** Jobs per second of verq's statements on variant `v`, `batch` jobs per commit. */
function replay(v: Variant, jobs: number, batch: number): number {
  const db = openReplayDb(freshFile(file(v.name)));
  try {
    db.exec((v.edit ?? ((s: string[]) => s))(ddl).join(";\n"));
    return jobs / (replayLifecycles(db, jobs, batch, v.onConflict === false ? { onConflict: false } : {}) / 1000);
  } finally {
    db.close();
  }
}

/** Jobs per second of the raw baseline's minimal table: the same three steps, `batch` jobs per commit. */
function minimal(jobs: number, batch: number): number {
  const raw = openRaw(freshFile(file("minimal")));
  try {
    return jobs / (rawLifecycles(raw, jobs, batch) / 1000);
  } finally {
    raw.db.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (const [label, jobs, batch] of [
  ["each step its own commit", 4_000, 1],
  ["100 jobs per step and commit", 30_000, 100],
] as const) {
  const results = new Map<string, number[]>();
  const add = (name: string, rate: number) => results.set(name, [...(results.get(name) ?? []), rate]);
  for (let r = 0; r < rounds; r++) {
    // Interleaved, so that a noisy neighbour hurts every variant alike.
    add("raw minimal table", minimal(jobs, batch));
    for (const v of variants) add(v.name, replay(v, jobs, batch));
  }
  const verq = median(results.get(variants[0]?.name ?? "") ?? []);
  console.log(`\njobs/s, ${label}, WAL + synchronous=NORMAL, median of ${rounds} rounds`);
  console.log("| schema | jobs/s | vs verq (as migrated) |\n|---|---:|---:|");
  for (const [name, xs] of results) {
    console.log(`| ${name} | ${Math.round(median(xs)).toLocaleString("en")} | ${(median(xs) / verq).toFixed(2)}× |`);
  }
}
for (const name of ["migrated", "minimal", ...variants.map((v) => v.name)]) freshFile(file(name));
