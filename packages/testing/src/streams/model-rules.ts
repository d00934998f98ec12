import {
  canonicalJson,
  type DeclaredCommand,
  type DeclaredEvent,
  type DeclaredStreamState,
  type JsonObject,
  type StreamDefinition,
} from "@verq/core";

/** A declared stream's state, whatever its fields. */
export type AnyState = JsonObject & { readonly state: string };

/** A declared stream type as the kit handles it inside, whatever its state and refusals. */
export type AnyDefinition = StreamDefinition<AnyState, string>;

/** A stream's state as the kit keeps it. */
export type ModelState = DeclaredStreamState<AnyState>;

/**
 * The rule each failure breaks, the tag its message starts with (`[fencing] …`):
 *
 * - `decision`: the store's answer to an accepted command is not the model's decision;
 * - `refusal`: a refused command's answer is not the model's refusal, or the store accepted what the model refuses;
 * - `log`: the events appended are not the events the model's decisions made (a refusal that wrote, an event twice);
 * - `versions`: a stream's versions in log order are not 1..n;
 * - `projection`: the projection of a stream is not the fold of its log;
 * - `check`: the store's own `check()` reports a problem;
 * - `fold`: a decision's state after is not the fold of its events (the machine and `evolve` disagree);
 * - `fencing`: the holder token went back, a take handed out no new token, or a stale token was accepted;
 * - `serial`: commands raced on one stream are not explained by the log's order;
 * - `store`: a store call threw; `commands`: the definition's `decide` threw for a generated command;
 * - `rebuild`: after `rebuild()`, a projection is not the fold of its log.
 */
export type ModelRule =
  | "decision"
  | "refusal"
  | "log"
  | "versions"
  | "projection"
  | "check"
  | "fold"
  | "fencing"
  | "serial"
  | "store"
  | "commands"
  | "rebuild";

/** A rule of the stream model broken: its message starts with `[rule]`. */
export class RuleBroken extends Error {
  readonly rule: ModelRule;

  constructor(rule: ModelRule, message: string, options?: { cause?: unknown }) {
    super(`[${rule}] ${message}`, options);
    this.name = "RuleBroken";
    this.rule = rule;
  }
}

/** How a stream type uses its holder token, for the fencing rules beyond "it never goes back". */
export interface FencingUse {
  /**
   * The command types that take the stream and must hand out a new token (count it up); when
   * given, any other accepted command must leave the token as it is.
   */
  readonly takes?: readonly string[];
  /** The token a command presents (a holder's), or undefined for a command that presents none. */
  readonly presented?: (command: DeclaredCommand) => number | undefined;
}

/** An event as the kit reads it back from the `events` table. */
export interface LoggedEvent {
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: JsonObject;
  readonly at: number;
  readonly schemaVersion: number;
}

/** Canonical JSON of `value` (keys sorted), for comparing and showing states and events. */
export function text(value: unknown): string {
  try {
    return canonicalJson(value, "value");
  } catch {
    return String(JSON.stringify(value));
  }
}

/** True when `a` and `b` are the same JSON. */
export function same(a: unknown, b: unknown): boolean {
  return text(a) === text(b);
}

/** The first path where `a` and `b` differ (`value.paidCents: 500 ≠ 0`), or "" when they are the same JSON. */
export function difference(a: unknown, b: unknown, path = ""): string {
  if (same(a, b)) return "";
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = difference(a[key], b[key], path === "" ? key : `${path}.${key}`);
      if (found !== "") return found;
    }
  }
  return `${path === "" ? "(whole)" : path}: ${text(a)} ≠ ${text(b)}`;
}

/** A command as messages show it: its type, then its other fields. */
export function describeCommand(command: DeclaredCommand): string {
  const { type, ...fields } = command;
  return Object.keys(fields).length === 0 ? type : `${type} ${text(fields)}`;
}

/** `events` as the fold reads them: at their type's current schema version. */
export function asStored(definition: AnyDefinition, events: readonly DeclaredEvent[]) {
  return events.map((event) => ({ type: event.type, data: event.data, schemaVersion: definition.schemaVersion(event.type) }));
}

/** The model's decision for `commands` from `state`; a throw of `decide` is the `commands` rule's failure. */
export function decideInModel(definition: AnyDefinition, state: ModelState, now: number, commands: readonly DeclaredCommand[]) {
  try {
    return definition.decide(state, now, ...commands);
  } catch (error) {
    const what = commands.map(describeCommand).join(", ");
    throw new RuleBroken("commands", `decide threw for ${what} on ${state.id}: ${(error as Error).message}`, { cause: error });
  }
}

/** The store's answer to commands against one stream, as `handle` returns it. */
export type Answer =
  | { readonly accepted: true; readonly stream: ModelState; readonly events: readonly DeclaredEvent[] }
  | { readonly accepted: false; readonly refusal: string; readonly command: string; readonly stream: ModelState };

/** The store's answer to `what` equals the model's decision from `before`. */
export function checkAnswer(
  what: string,
  before: ModelState,
  decision: ReturnType<AnyDefinition["decide"]>,
  answer: Answer,
): void {
  const where = `${what} on ${before.id} (version ${before.version})`;
  if (decision.accepted && !answer.accepted) {
    const types = decision.events.map((e) => e.type).join(", ");
    throw new RuleBroken("decision", `${where}: the store refused it ("${answer.refusal}"), the model accepts it with ${types}`);
  }
  if (!decision.accepted && answer.accepted) {
    const types = answer.events.map((e) => e.type).join(", ");
    throw new RuleBroken(
      "refusal",
      `${where}: the model refuses it ("${decision.refusal}"), the store accepted it and wrote ${types}`,
    );
  }
  if (decision.accepted && answer.accepted) {
    if (!same(answer.events, decision.events)) {
      throw new RuleBroken("decision", `${where}: the store decided ${text(answer.events)}, the model ${text(decision.events)}`);
    }
    if (!same(answer.stream, decision.after)) {
      throw new RuleBroken(
        "decision",
        `${where}: the store's state after differs from the model's at ${difference(answer.stream, decision.after)}`,
      );
    }
    return;
  }
  if (!decision.accepted && !answer.accepted) {
    if (answer.refusal !== decision.refusal || answer.command !== decision.command) {
      throw new RuleBroken(
        "refusal",
        `${where}: the store refused ${answer.command} with "${answer.refusal}", the model refuses ${decision.command} with "${decision.refusal}"`,
      );
    }
    if (!same(answer.stream, before)) {
      throw new RuleBroken(
        "refusal",
        `${where}: the store refused from another state than the model's, at ${difference(answer.stream, before)}`,
      );
    }
  }
}

/** An accepted decision's state after is the fold of its events from the state before. */
export function checkFold(
  definition: AnyDefinition,
  what: string,
  before: ModelState,
  after: ModelState,
  events: readonly DeclaredEvent[],
): void {
  const folded = definition.fold(before, asStored(definition, events));
  if (!same(after, folded)) {
    throw new RuleBroken(
      "fold",
      `${what} on ${before.id}: the machine's state after and the fold of its events (evolve) differ at ${difference(after, folded)}`,
    );
  }
}

/** The log of one stream: versions 1..n in log order, and exactly the events the model's decisions made, at their schema version. */
export function checkLog(
  definition: AnyDefinition,
  id: string,
  after: string,
  logged: readonly LoggedEvent[],
  decided: readonly DeclaredEvent[],
): void {
  const versions = logged.map((e) => e.version);
  if (versions.some((v, i) => v !== i + 1)) {
    throw new RuleBroken(
      "versions",
      `stream ${id} after ${after}: versions in log order are ${versions.join(",")}, not 1..${versions.length}`,
    );
  }
  if (logged.length !== decided.length) {
    const why =
      logged.length > decided.length
        ? "more than the model's accepted decisions made"
        : "fewer than the model's accepted decisions made";
    throw new RuleBroken(
      "log",
      `stream ${id} after ${after}: the log holds ${logged.length} event(s), ${decided.length} expected: ${why}`,
    );
  }
  logged.forEach((event, i) => {
    const expected = decided[i] as DeclaredEvent;
    if (event.type !== expected.type || !same(event.data, expected.data)) {
      throw new RuleBroken(
        "log",
        `stream ${id} after ${after}: version ${event.version} holds ${event.type} ${text(event.data)}, the model decided ${expected.type} ${text(expected.data)}`,
      );
    }
    const version = definition.schemaVersion(event.type);
    if (event.schemaVersion !== version || event.at !== expected.data.at) {
      throw new RuleBroken(
        "log",
        `stream ${id}: version ${event.version} (${event.type}) is stored at schema version ${event.schemaVersion} and time ${event.at}, expected ${version} and ${expected.data.at}`,
      );
    }
  });
}

/** Over the fold of a stream's log: the holder token never goes back, so that no replaced token comes back. */
export function checkTokens(definition: AnyDefinition, id: string, logged: readonly LoggedEvent[]): void {
  const fencing = definition.fencing;
  if (fencing === null) return;
  let state = definition.initial(id);
  let token = fencing.token(state.value);
  const replaced = new Set<number>();
  for (const event of logged) {
    state = definition.fold(state, [event]);
    const next = fencing.token(state.value);
    if (next < token) {
      throw new RuleBroken(
        "fencing",
        `stream ${id}: the token went back from ${token} to ${next} at version ${event.version} (${event.type})`,
      );
    }
    if (next !== token) {
      if (replaced.has(next))
        throw new RuleBroken(
          "fencing",
          `stream ${id}: token ${next} came back at version ${event.version} after it was replaced`,
        );
      replaced.add(token);
      token = next;
    }
  }
}

/**
 * One accepted command, from `before` to `after`: its token never goes back, a presented token is
 * the stream's current one, and (with `use.takes`) a take hands out a new token while any other
 * command leaves it as it is.
 */
export function checkTake(
  definition: AnyDefinition,
  use: FencingUse | undefined,
  command: DeclaredCommand,
  before: ModelState,
  after: ModelState,
): void {
  const fencing = definition.fencing;
  if (fencing === null) return;
  const from = fencing.token(before.value);
  const to = fencing.token(after.value);
  const where = `"${command.type}" accepted on ${before.id} (version ${before.version})`;
  if (to < from) throw new RuleBroken("fencing", `${where} moved the token back from ${from} to ${to}`);
  const presented = use?.presented?.(command);
  if (presented !== undefined && presented !== from) {
    throw new RuleBroken(
      "fencing",
      `${where} with token ${presented}, but the stream's token was ${from}: a stale holder got through`,
    );
  }
  if (use?.takes === undefined) return;
  if (use.takes.includes(command.type) && to <= from) {
    throw new RuleBroken("fencing", `${where} is a take but handed out no new token: it stayed at ${from}, handed out twice`);
  }
  if (!use.takes.includes(command.type) && to !== from) {
    throw new RuleBroken("fencing", `${where} is not a take, but moved the token from ${from} to ${to}`);
  }
}
