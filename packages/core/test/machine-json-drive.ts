import { isDeepStrictEqual } from "node:util";
import { createActor, type AnyActorRef, type AnyStateMachine } from "xstate";
import { VERQ_MACHINES, machineGraph, type VerqMachineName } from "../src/index.ts";
import { MACHINE_RUN_FIXTURES } from "./machine-json-events.ts";
import { implementationsOf, machineFromJson } from "./machine-json-runner.ts";
import { coveringRuns, type Evaluation } from "./machine-json-plan.ts";

/** What driving a machine's JSON found: the transitions of the original it took, and every difference. */
export interface DriveReport {
  /** Indices into `machineGraph(original).transitions` of the transitions the original took as planned. */
  readonly exercised: ReadonlySet<number>;
  readonly total: number;
  readonly runs: number;
  /** One line per step where the machine from the JSON differed from the original; empty when none did. */
  readonly differences: readonly string[];
}

/** Guard answers handed out in order, and a log of what was asked; past the planned ones, every answer is false. */
class GuardScript {
  private planned: Evaluation[] = [];
  private asked: Evaluation[] = [];

  /** Runs `send` with `planned` as the answers, and returns the evaluations it made. */
  during(planned: readonly Evaluation[], send: () => void): Evaluation[] {
    this.planned = [...planned];
    this.asked = [];
    send();
    return this.asked;
  }

  answer(guard: string): boolean {
    // A guard loop that never settles ends here rather than hanging the run.
    if (this.asked.length > 200) throw new Error("more than 200 guard evaluations in one step");
    const [next] = this.planned;
    const outcome = next !== undefined && next[0] === guard && next[1];
    if (next !== undefined) this.planned.shift();
    this.asked.push([guard, outcome]);
    return outcome;
  }

  /** The machine's every guard, answering from this script instead of the data. */
  guards(names: readonly string[]): Record<string, () => boolean> {
    return Object.fromEntries(names.map((name) => [name, () => this.answer(name)]));
  }
}

function start(machine: AnyStateMachine, input: unknown): AnyActorRef {
  const actor = createActor(machine, { input });
  // An error is read from the snapshot; the subscription keeps it from being reported as unhandled.
  actor.subscribe({ error: () => {} });
  return actor.start();
}

const view = (actor: AnyActorRef) => {
  const { value, context, status } = actor.getSnapshot() as { value: unknown; context: unknown; status: string };
  return { value, context, status };
};

/**
 * Drives the machine rebuilt from `json` (as a runner would: {@link machineFromJson} with the
 * original's guards, actions and context) beside the original `name` machine, through one
 * planned run per transition of the original ({@link coveringRuns}). Both take the same
 * commands; when `scripted`, both machines' guards answer from the plan, so that each run takes
 * the transition it is meant for, and the guards the JSON's machine asks must be the ones the
 * original asks. After each step the two machines must be in the same state with the same
 * context, and the original must still be running (an action that throws stops it). A transition counts as exercised when the original asked exactly the planned guards
 * and ended in the planned state.
 */
export function driveMachineJson(name: VerqMachineName, json: string, scripted: boolean): DriveReport {
  const original = VERQ_MACHINES[name];
  const graph = machineGraph(original);
  const { input, events } = MACHINE_RUN_FIXTURES[name];
  const implementations = implementationsOf(original);
  const script = new GuardScript();
  const guards = scripted ? script.guards(Object.keys(implementations.guards)) : implementations.guards;
  const reference = scripted ? original.provide({ guards } as never) : original;
  const rebuilt = machineFromJson(json, { ...implementations, guards });
  const exercised = new Set<number>();
  const differences: string[] = [];
  const runs = coveringRuns(graph);
  runs.forEach((run, number) => {
    const [a, b] = [start(reference, input), start(rebuilt, input)];
    for (const [at, step] of run.entries()) {
      const event = events[step.event];
      if (event === undefined) throw new Error(`no ${step.event} command for the ${name} machine`);
      const asked = script.during(step.evaluations, () => a.send(event));
      const askedByJson = script.during(step.evaluations, () => b.send(event));
      const where = `run ${number} step ${at} (${step.event} → ${step.value})`;
      if (scripted && !isDeepStrictEqual(askedByJson, asked)) {
        differences.push(`${where}: guards ${JSON.stringify(askedByJson)}, the original's ${JSON.stringify(asked)}`);
      }
      if (view(a).status !== "active") differences.push(`${where}: the original stopped (${view(a).status})`);
      if (!isDeepStrictEqual(view(b), view(a))) {
        differences.push(
          `${where}: ${JSON.stringify(view(b).value)} (${view(b).status}), the original ${JSON.stringify(view(a).value)}`,
        );
      }
      const planned = isDeepStrictEqual(asked, step.evaluations) && view(a).value === step.value && view(a).status === "active";
      if (scripted && planned) for (const index of step.taken) exercised.add(index);
    }
    a.stop();
    b.stop();
  });
  return { exercised, total: graph.transitions.length, runs: runs.length, differences };
}
