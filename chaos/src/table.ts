/**
 * The one table of a run: a row per scenario, a column per system, each cell
 * `lost / completed twice / late completions accepted / recovery s`, with numbered notes for
 * what a cell cannot say by itself (why n/a, why not run, jobs still held, workers restarted).
 */
import type { Cell } from "./run-cell.ts";
import type { Scenario } from "./scenarios.ts";
import type { ChaosSystem } from "./system.ts";

/** What became of one scenario for one system. */
export type Outcome =
  | { readonly kind: "cell"; readonly cell: Cell }
  | { readonly kind: "n/a"; readonly why: string }
  | { readonly kind: "not run"; readonly why: string };

export interface TableInput {
  readonly systems: readonly ChaosSystem[];
  readonly scenarios: readonly Scenario[];
  readonly outcomes: ReadonlyMap<string, Outcome>;
  readonly key: (scenario: Scenario, system: ChaosSystem) => string;
  readonly header: string;
}

/** The table and its notes as Markdown. */
export function formatTable(input: TableInput): string {
  const notes: string[] = [];
  const note = (text: string): string => {
    const at = notes.indexOf(text);
    if (at >= 0) return `[${at + 1}]`;
    notes.push(text);
    return `[${notes.length}]`;
  };
  const lines = [
    "",
    `Chaos: ${input.header}.`,
    "Each cell: lost / completed twice / late completions accepted / recovery s.",
    "",
    `| scenario | ${input.systems.map((s) => s.name).join(" | ")} |`,
    `|---|${input.systems.map(() => "---").join("|")}|`,
  ];
  for (const scenario of input.scenarios) {
    const cells = input.systems.map((system) => {
      const outcome = input.outcomes.get(input.key(scenario, system));
      if (outcome === undefined) return "not run";
      if (outcome.kind !== "cell") return `${outcome.kind} ${note(outcome.why)}`;
      const c = outcome.cell;
      const recovery =
        c.recoveryS === null
          ? `— ${note("no job the fault interrupted (or, for a system fault, no job at all) was run again within the wait")}`
          : c.recoveryS.toFixed(1);
      const extra = [
        c.unfinished > 0
          ? note(`${system.name}, ${scenario.key}: ${c.unfinished} jobs still unfinished in the queue when the wait ended`)
          : "",
        c.restarts > 0
          ? note(`${system.name}, ${scenario.key}: ${c.restarts} worker exits on their own, restarted by the harness`)
          : "",
        c.note === undefined ? "" : note(`${system.name}, ${scenario.key}: ${c.note}`),
      ].join("");
      return `${c.lost} / ${c.twice} / ${c.late} / ${recovery}${extra === "" ? "" : ` ${extra}`}`;
    });
    lines.push(`| ${scenario.title} | ${cells.join(" | ")} |`);
  }
  lines.push("", ...notes.map((text, i) => `[${i + 1}] ${text}`));
  lines.push("", "Settings:", ...input.systems.map((s) => `- ${s.name}: ${s.settings}`), "");
  return `${lines.join("\n")}\n`;
}
