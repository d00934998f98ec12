import type { DeclaredCommand } from "@verq/core";
import fc from "fast-check";
import { describeCommand } from "./model-rules.ts";

/**
 * One step of a run, against the run's streams (numbered from 0):
 *
 * - `handle`: one command, or two in order (all accepted or none), to one stream;
 * - `many`: one command to each of two or three streams (a stream may come twice) in one `handleMany` transaction;
 * - `race`: two to four commands to one stream, each sent on its own at once (concurrent runs only).
 */
export type Step =
  | { readonly kind: "handle"; readonly stream: number; readonly commands: readonly DeclaredCommand[] }
  | { readonly kind: "many"; readonly items: readonly { readonly stream: number; readonly command: DeclaredCommand }[] }
  | { readonly kind: "race"; readonly stream: number; readonly commands: readonly DeclaredCommand[] };

/**
 * A step before its commands are drawn: what kind, to which streams, and a slot for each
 * command (the command itself, or a seed to draw it with from its stream's state).
 */
export type StepPlan<TSlot> =
  | { readonly kind: "handle"; readonly stream: number; readonly slots: readonly TSlot[] }
  | { readonly kind: "many"; readonly items: readonly { readonly stream: number; readonly slot: TSlot }[] }
  | { readonly kind: "race"; readonly stream: number; readonly slots: readonly TSlot[] };

/** How the steps of a run are drawn. */
export interface StepShape {
  readonly streams: number;
  readonly maxSteps: number;
  readonly concurrent: boolean;
}

/** Plans of 1 to `maxSteps` steps: mostly single commands, some pairs and batches, and races when concurrent. */
export function plansArbitrary<TSlot>(slot: fc.Arbitrary<TSlot>, shape: StepShape): fc.Arbitrary<StepPlan<TSlot>[]> {
  const stream = fc.nat({ max: shape.streams - 1 });
  const handle = (count: number) =>
    fc.record({ kind: fc.constant("handle" as const), stream, slots: fc.array(slot, { minLength: count, maxLength: count }) });
  const many = fc.record({
    kind: fc.constant("many" as const),
    items: fc.array(fc.record({ stream, slot }), { minLength: 2, maxLength: 3 }),
  });
  const plans: fc.WeightedArbitrary<StepPlan<TSlot>>[] = [
    { arbitrary: handle(1), weight: 8 },
    { arbitrary: handle(2), weight: 2 },
    { arbitrary: many, weight: 1 },
  ];
  if (shape.concurrent) {
    const race = fc.record({ kind: fc.constant("race" as const), stream, slots: fc.array(slot, { minLength: 2, maxLength: 4 }) });
    plans.push({ arbitrary: race, weight: 5 });
  }
  return fc.array(fc.oneof(...plans), { minLength: 1, maxLength: shape.maxSteps, size: "max" });
}

/** The step of `plan`, each command drawn by `draw` from its slot, for its stream. */
export function drawStep<TSlot>(plan: StepPlan<TSlot>, draw: (stream: number, slot: TSlot) => DeclaredCommand): Step {
  switch (plan.kind) {
    case "handle":
      return { kind: "handle", stream: plan.stream, commands: plan.slots.map((slot) => draw(plan.stream, slot)) };
    case "many":
      return { kind: "many", items: plan.items.map(({ stream, slot }) => ({ stream, command: draw(stream, slot) })) };
    case "race":
      return { kind: "race", stream: plan.stream, commands: plan.slots.map((slot) => draw(plan.stream, slot)) };
  }
}

/** A step as a failure shows it: `s0 ← place {…}`, `race on s1: pick {…} | ship {…}`. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case "handle":
      return step.commands.length === 1
        ? `s${step.stream} ← ${describeCommand(step.commands[0] as DeclaredCommand)}`
        : `s${step.stream} ← [${step.commands.map(describeCommand).join(", ")}] (all or none)`;
    case "many":
      return `handleMany: ${step.items.map((item) => `s${item.stream} ← ${describeCommand(item.command)}`).join("; ")}`;
    case "race":
      return `race on s${step.stream}: ${step.commands.map(describeCommand).join(" | ")}`;
  }
}

/** How many commands a step sends. */
export function commandsOf(step: Step): number {
  return step.kind === "many" ? step.items.length : step.commands.length;
}
