import type { MachineTransition } from "./enumerate-transitions.ts";

/** One machine's coverage: how many of its transitions the tests took, and the ones they did not. */
export interface MachineCoverage {
  readonly machine: string;
  readonly covered: number;
  readonly total: number;
  readonly uncovered: readonly MachineTransition[];
}

/** Every machine's coverage, and any recorded transition the enumeration does not know (a bug in one or the other). */
export interface TransitionCoverage {
  readonly machines: readonly MachineCoverage[];
  readonly unknown: readonly string[];
}

/**
 * Compares the enumerated transitions with the recorded ones, machine by machine, in the
 * enumeration's order. Pure.
 */
export function transitionCoverage(transitions: readonly MachineTransition[], recorded: ReadonlySet<string>): TransitionCoverage {
  const machines = new Map<string, MachineTransition[]>();
  for (const t of transitions) machines.set(t.machine, [...(machines.get(t.machine) ?? []), t]);
  const known = new Set(transitions.map((t) => t.key));
  return {
    machines: [...machines].map(([machine, list]) => {
      const uncovered = list.filter((t) => !recorded.has(t.key));
      return { machine, covered: list.length - uncovered.length, total: list.length, uncovered };
    }),
    unknown: [...recorded].filter((key) => !known.has(key)).sort(),
  };
}

/** True when every transition was taken and nothing unknown was recorded. */
export function isComplete(coverage: TransitionCoverage): boolean {
  return coverage.unknown.length === 0 && coverage.machines.every((m) => m.uncovered.length === 0);
}

/** A transition as the report names it: `leased --job.claim #1 [attemptsExhausted]--> dead (expireLease, die:exhausted)`. */
export function transitionName(t: MachineTransition): string {
  const guard = t.guard === null ? "" : ` [${t.guard}]`;
  const fallback = t.fallback ? " (fallback)" : "";
  return `${t.source} --${t.event} #${t.branch}${guard}--> ${t.target}: ${t.outcome}${fallback}`;
}

/** The report: per machine covered/total, then each uncovered transition, then any unknown one. */
export function formatCoverage(coverage: TransitionCoverage): string {
  const lines: string[] = [];
  let covered = 0;
  let total = 0;
  for (const m of coverage.machines) {
    covered += m.covered;
    total += m.total;
    lines.push(`${m.machine.padEnd(9)} ${String(m.covered).padStart(3)}/${m.total} transitions covered`);
    for (const t of m.uncovered) lines.push(`  uncovered: ${transitionName(t)}`);
  }
  lines.push(`all       ${String(covered).padStart(3)}/${total} transitions covered`);
  for (const key of coverage.unknown) lines.push(`recorded but not enumerated: ${key.replaceAll("\t", " ")}`);
  return lines.join("\n");
}
