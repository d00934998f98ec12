import { isDeepStrictEqual as isDeepEqual } from "node:util";
import fc from "fast-check";
import type { Decision } from "@verq/core";
import { fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";

/** One stream's decider, as the three machines' deciders all are. */
type AnyDecider<TState, TCommand> = (state: TState, ...commands: readonly TCommand[]) => Decision<TState, unknown, unknown>;

/** What deciding gave: the decision, or the error it threw (a broken fold throws). */
type Outcome = { readonly decision: Decision<unknown, unknown, unknown> } | { readonly threw: string };

function attempt<TState, TCommand>(decide: AnyDecider<TState, TCommand>, state: TState, commands: readonly TCommand[]): Outcome {
  try {
    return { decision: decide(state, ...commands) };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

export interface TableRun<TState extends { readonly state: string }, TCommand> extends SearchOptions {
  /** The property's name, printed with its seed. */
  readonly name: string;
  /** The decider under test: by default the compiled table. */
  readonly candidate: AnyDecider<TState, TCommand>;
  /** The reference: XState's interpreter over the real machine. */
  readonly reference: AnyDecider<TState, TCommand>;
  /** The stream's state before its first event. */
  readonly initial: TState;
  readonly command: fc.Arbitrary<TCommand>;
  /** The command that creates the stream: the first command of nine runs in ten. */
  readonly creation: fc.Arbitrary<TCommand>;
  /** Every state the runs must reach, so that the property cannot pass on shallow sequences. */
  readonly states: readonly string[];
}

/** Runs of the fixed search when neither `numRuns` nor `FC_NUM_RUNS` says. */
export const TABLE_RUNS = 1_000;

/** A run's commands: a creation first (nine times in ten), then up to 19 more of any kind. */
function commandsOf<TState extends { readonly state: string }, TCommand>(
  run: TableRun<TState, TCommand>,
): fc.Arbitrary<TCommand[]> {
  const first = fc.oneof({ arbitrary: run.creation, weight: 9 }, { arbitrary: run.command, weight: 1 });
  return fc.tuple(first, fc.array(run.command, { maxLength: 19 })).map(([head, rest]) => [head, ...rest]);
}

/**
 * The property that holds the compiled table to XState: from a stream's initial state, a random
 * sequence of commands is decided one at a time by both deciders, which must give the same
 * decision (events, the state they fold to, or the same refusal) or throw the same error; an
 * accepted decision moves the stream on. The whole sequence is also decided at once by both.
 * After the fixed search, every state of the machine must have been reached in some run (a
 * replay makes one run, and a fresh search's count depends on its time box). Rejects with a
 * `PropertyFailed`, as the model-based properties do.
 */
export async function runTableEquivalence<TState extends { readonly state: string }, TCommand>(
  run: TableRun<TState, TCommand>,
): Promise<RunSummary> {
  const reached = new Set<string>();
  const summary = await assertProperty(
    fc.property(commandsOf(run), (commands) => {
      let state = run.initial;
      for (const [index, command] of commands.entries()) {
        const expected = attempt(run.reference, state, [command]);
        const actual = attempt(run.candidate, state, [command]);
        if (!isDeepEqual(actual, expected)) {
          throw new Error(
            `[table] command ${index} ${JSON.stringify(command)} from ${JSON.stringify(state)}: the table decided ${JSON.stringify(actual)}, XState ${JSON.stringify(expected)}`,
          );
        }
        if ("threw" in expected || !expected.decision.accepted) continue;
        state = expected.decision.after as TState;
        reached.add(state.state);
      }
      const whole = attempt(run.reference, run.initial, commands);
      if (!isDeepEqual(attempt(run.candidate, run.initial, commands), whole)) {
        throw new Error(`[table sequence] ${JSON.stringify(commands)}: the table and XState decide the sequence differently`);
      }
    }),
    fcConfig(run.name, searchDefaults(run, TABLE_RUNS)),
  );
  const missed = run.states.filter((s) => !reached.has(s));
  const fixed = run.replay === undefined && run.fresh === undefined;
  if (fixed && missed.length > 0) throw new Error(`[table coverage] no run reached ${missed.join(", ")}`);
  return summary;
}
