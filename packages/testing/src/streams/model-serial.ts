import type { DeclaredCommand, DeclaredEvent } from "@verq/core";
import {
  RuleBroken,
  asStored,
  checkFold,
  checkLog,
  checkTake,
  decideInModel,
  describeCommand,
  difference,
  same,
  text,
  type AnyDefinition,
  type Answer,
  type FencingUse,
  type LoggedEvent,
  type ModelState,
} from "./model-rules.ts";

/** One command of a race, and the store's answer to it. */
export interface Raced {
  readonly command: DeclaredCommand;
  readonly answer: Answer;
}

/**
 * Checks commands raced on stream `id` against the log they left: they must be explained by one
 * serial order, the log's. The accepted ones, in the order of the versions they were answered
 * with, must tile the new part of the log exactly (each in it once, no version claimed twice, no
 * event no command answered for), and replaying the log's order through `decide` from the
 * model's state must reproduce each accepted answer and, from the state at the version it was
 * refused from, each refusal. Returns the model's stream after the race: the fold of the log.
 */
export function checkRace(
  definition: AnyDefinition,
  fencing: FencingUse | undefined,
  id: string,
  before: { readonly state: ModelState; readonly events: readonly DeclaredEvent[] },
  logged: readonly LoggedEvent[],
  raced: readonly Raced[],
  now: number,
): { state: ModelState; events: DeclaredEvent[] } {
  checkLog(definition, id, "a race, before it", logged.slice(0, before.events.length), before.events);
  const states = new Map<number, ModelState>([[before.state.version, before.state]]);
  const events = [...before.events];
  let state = before.state;
  const accepted = raced.filter((r) => r.answer.accepted).sort((a, b) => a.answer.stream.version - b.answer.stream.version);
  for (const { command, answer } of accepted) {
    if (!answer.accepted) continue;
    const what = `${describeCommand(command)} (raced on ${id})`;
    const first = answer.stream.version - answer.events.length + 1;
    if (first !== state.version + 1) {
      throw new RuleBroken(
        "serial",
        `${what} was accepted at versions ${first}..${answer.stream.version}, but in the log's order the next version is ${state.version + 1}: two accepted commands claim one version, or one left a gap`,
      );
    }
    const decision = decideInModel(definition, state, now, [command]);
    if (!decision.accepted) {
      throw new RuleBroken(
        "serial",
        `${what} was accepted at version ${first}, but replayed in the log's order from version ${state.version} the model refuses it ("${decision.refusal}")`,
      );
    }
    if (!same(decision.events, answer.events) || !same(decision.after, answer.stream)) {
      throw new RuleBroken(
        "serial",
        `${what} was answered with ${text(answer.events)}, but replayed in the log's order from version ${state.version} the model decides ${text(decision.events)}${same(decision.events, answer.events) ? ` (state after differs at ${difference(answer.stream, decision.after)})` : ""}`,
      );
    }
    const rows = logged.slice(state.version, answer.stream.version).map((e) => ({ type: e.type, data: e.data }));
    if (!same(rows, answer.events)) {
      throw new RuleBroken(
        "serial",
        `${what} was answered with ${text(answer.events)}, but the log holds ${text(rows)} at versions ${first}..${answer.stream.version}`,
      );
    }
    checkFold(definition, what, state, decision.after, decision.events);
    checkTake(definition, fencing, command, state, decision.after);
    events.push(...decision.events);
    state = definition.fold(state, asStored(definition, decision.events));
    states.set(state.version, state);
  }
  if (logged.length !== state.version) {
    throw new RuleBroken(
      "serial",
      `stream ${id}: the log holds versions ${state.version + 1}..${logged.length}, which no accepted command of the race answered for`,
    );
  }
  for (const { command, answer } of raced) {
    if (answer.accepted) continue;
    const what = `${describeCommand(command)} (raced on ${id})`;
    const from = states.get(answer.stream.version);
    if (from === undefined) {
      throw new RuleBroken(
        "serial",
        `${what} was refused from version ${answer.stream.version}, which the log's order never passes through`,
      );
    }
    const decision = decideInModel(definition, from, now, [command]);
    if (decision.accepted || decision.refusal !== answer.refusal) {
      const model = decision.accepted ? "accepts it" : `refuses it with "${decision.refusal}"`;
      throw new RuleBroken(
        "serial",
        `${what} was refused with "${answer.refusal}" from version ${answer.stream.version}, but in the log's order the model ${model} there`,
      );
    }
    if (!same(answer.stream, from)) {
      throw new RuleBroken(
        "serial",
        `${what} was refused from a state the log's order never reaches: ${difference(answer.stream, from)}`,
      );
    }
  }
  return { state, events };
}
