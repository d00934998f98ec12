import { isVerqError, type DeclaredCommand, type DeclaredEvent, type DeclaredStreamState } from "@verq/core";
import type { DeclaredStream, OwnProjection, VerqStore } from "@verq/store";
import type fc from "fast-check";
import {
  RuleBroken,
  asStored,
  checkAnswer,
  checkFold,
  checkLog,
  checkTake,
  checkTokens,
  decideInModel,
  describeCommand,
  difference,
  same,
  text,
  type AnyDefinition,
  type AnyState,
  type Answer,
  type FencingUse,
  type LoggedEvent,
  type ModelState,
} from "./model-rules.ts";
import { throughSchemas, type CommandSchemas } from "./model-schemas.ts";
import { checkRace, type Raced } from "./model-serial.ts";
import { commandsOf, describeStep, drawStep, type Step, type StepPlan } from "./model-steps.ts";

/** A service's own projection under test, and how the kit reads it back. */
export interface OwnProjectionCheck<TState> {
  /** The projection the store writes in the transaction of the events, instead of the generic one. */
  readonly projection: OwnProjection<TState>;
  /** Reads stream `id` back from the projection: null when it has no row for it. */
  readonly read: (db: VerqStore["db"], id: string) => Promise<unknown>;
  /** What `read` must return for a stream folded to `state`: `state.value` when not given. */
  readonly expected?: (state: DeclaredStreamState<TState>) => unknown;
}

/** What the runs of one check did, added up. */
export interface Tally {
  steps: number;
  commands: number;
  accepted: number;
  refused: number;
  races: number;
  /** Commands the store refused as `VERQ_INVALID_PAYLOAD`, nothing written: their schema refused them, or one sent with them. */
  invalid: number;
  events: number;
  /** Accepted decisions by the machine state they ended in: how far the runs went. */
  readonly reached: Record<string, number>;
}

/** What every run of one check shares: the definition, its handles on the stores, the clock's time. */
export interface RunWorld {
  readonly definition: AnyDefinition;
  /** One handle per store: the first one serves every step but races, and every read. */
  readonly handles: readonly DeclaredStream<AnyState, string>[];
  readonly store: VerqStore;
  /** The time the stores' clock answers, moved by the runs. */
  readonly time: { now: number };
  readonly own: OwnProjectionCheck<AnyState> | undefined;
  readonly fencing: FencingUse | undefined;
  /** The command schemas the stream was declared with: the model decides their output. */
  readonly schemas: CommandSchemas | undefined;
  readonly tally: Tally;
}

/** What the model holds for one stream: the fold of the events it saw accepted, and those events. */
interface ModelStream {
  state: ModelState;
  readonly events: DeclaredEvent[];
}

/** An accepted decision of a step, whose fold and fencing are checked once the store was. */
interface Accepted {
  readonly what: string;
  readonly commands: readonly DeclaredCommand[];
  readonly before: ModelState;
  readonly after: ModelState;
  readonly events: readonly DeclaredEvent[];
}

/** One stream of a step that is not a race, and its commands. */
type StepItem = { readonly stream: number; readonly commands: readonly DeclaredCommand[] };

/** Time between two steps of a run, so that the events of successive steps carry different times. */
const STEP_MS = 1_000;

/**
 * One run: its steps sent to the store and decided by the model alongside, each step followed
 * by the checks of every rule; the model of each stream is the fold of the events it saw accepted.
 */
export class ModelRun {
  readonly #world: RunWorld;
  readonly #ids: readonly string[];
  readonly #models = new Map<string, ModelStream>();
  readonly #described: string[] = [];

  constructor(world: RunWorld, ids: readonly string[]) {
    this.#world = world;
    this.#ids = ids;
  }

  /**
   * Draws the commands of `plan` (each by `draw`, from its slot and its stream's state in the
   * model), sends the step, decides it in the model and checks every rule; a race starts its
   * commands in the order `scheduler` says.
   */
  async step<TSlot>(
    plan: StepPlan<TSlot>,
    draw: (state: ModelState, slot: TSlot) => DeclaredCommand,
    scheduler: fc.Scheduler | null,
  ): Promise<void> {
    const { time, tally } = this.#world;
    const step = drawStep(plan, (stream, slot) => draw(this.#model(this.#id(stream)).state, slot));
    const what = describeStep(step);
    this.#described.push(what);
    time.now += STEP_MS;
    tally.steps += 1;
    tally.commands += commandsOf(step);
    if (step.kind === "race") return this.#race(step.stream, step.commands, scheduler, what);
    const items: StepItem[] =
      step.kind === "handle" ? [step] : step.items.map((i) => ({ stream: i.stream, commands: [i.command] }));
    // The store checks every command against its schema before it reads anything; so does the model.
    const outputs = await Promise.all(items.map(({ commands }) => throughSchemas(this.#world.schemas, commands)));
    if (outputs.includes(null)) return this.#refusedBySchema(step, items, what);
    // The store chains the items of one batch on the state each decision leaves; so does the model.
    const chained = new Map<string, ModelState>();
    const decided = items.map(({ stream }, k) => {
      const commands = outputs[k] as readonly DeclaredCommand[];
      const id = this.#id(stream);
      const before = chained.get(id) ?? this.#model(id).state;
      const decision = decideInModel(this.#world.definition, before, time.now, commands);
      if (decision.accepted) chained.set(id, decision.after);
      return { id, commands, before, decision };
    });
    const answers = (await storeCall(what, () => this.#send(step, items))) as Answer[];
    const accepted: Accepted[] = [];
    decided.forEach(({ id, commands, before, decision }, i) => {
      const label = commands.map(describeCommand).join(", ");
      checkAnswer(label, before, decision, answers[i] as Answer);
      if (!decision.accepted) {
        tally.refused += commands.length;
        return;
      }
      tally.accepted += commands.length;
      tally.events += decision.events.length;
      tally.reached[decision.after.state] = (tally.reached[decision.after.state] ?? 0) + 1;
      accepted.push({ what: label, commands, before, after: decision.after, events: decision.events });
      const model = this.#model(id);
      model.events.push(...decision.events);
      model.state = this.#world.definition.fold(model.state, asStored(this.#world.definition, decision.events));
    });
    await this.#checkStreams(new Set(decided.map((d) => d.id)), what);
    for (const decision of accepted) this.#checkAccepted(decision);
  }

  /** The steps sent so far, as a failure lists them. */
  get described(): readonly string[] {
    return this.#described;
  }

  /**
   * At the end of a run, what the store's `check()` compares, for the run's streams only (the
   * whole check reads every stream of the type, and runs add up): each generic projection row
   * exists exactly for a stream with events, and holds its fold's state, version, token and value.
   */
  async finish(): Promise<void> {
    const { definition, own, store } = this.#world;
    if (own !== undefined) return;
    const rows = await store.db
      .selectFrom("stream_states")
      .select(["stream_id", "state", "version", "token", "value"])
      .where("stream_type", "=", definition.name)
      .where("stream_id", "in", this.#ids)
      .execute();
    const byId = new Map(rows.map((row) => [row.stream_id, row]));
    const logs = await readLogs(this.#world, this.#ids);
    for (const id of this.#ids) {
      const row = byId.get(id);
      const logged = logs.get(id) ?? [];
      if (row === undefined && logged.length === 0) continue;
      if (row === undefined) throw new RuleBroken("check", `stream ${id} has ${logged.length} event(s) but no stream_states row`);
      if (logged.length === 0) throw new RuleBroken("check", `stream ${id} has a stream_states row but no event`);
      const folded = definition.fold(definition.initial(id), logged);
      const token = definition.fencing === null ? null : definition.fencing.token(folded.value);
      const kept = {
        state: row.state,
        version: Number(row.version),
        token: row.token === null ? null : Number(row.token),
        value: JSON.parse(row.value) as unknown,
      };
      const expected = { state: folded.state, version: folded.version, token, value: folded.value };
      if (!same(kept, expected)) {
        throw new RuleBroken(
          "check",
          `stream ${id}: its stream_states row is not the fold of its log, at ${difference(kept, expected)}`,
        );
      }
    }
  }

  /** Sends a step that is not a race as drawn (the store runs the schemas), through the first store. */
  #send(step: Step, items: readonly StepItem[]): Promise<unknown> {
    const [first] = this.#world.handles;
    return step.kind === "handle"
      ? first!.handle(this.#id(step.stream), step.commands).then((answer) => [answer])
      : first!.handleMany(items.map(({ stream, commands }) => ({ id: this.#id(stream), commands })));
  }

  /** A step with a command its schema refuses: the store must refuse it as `VERQ_INVALID_PAYLOAD`, writing nothing. */
  async #refusedBySchema(step: Step, items: readonly StepItem[], what: string): Promise<void> {
    const outcome: unknown = await this.#send(step, items).catch((error: unknown) => error);
    if (!isVerqError(outcome, "VERQ_INVALID_PAYLOAD")) {
      const got = Array.isArray(outcome) ? "it was answered" : `it threw ${String(outcome)}`;
      throw new RuleBroken("commands", `${what}: a command its schema refuses must be VERQ_INVALID_PAYLOAD, but ${got}`);
    }
    this.#world.tally.invalid += items.reduce((n, item) => n + item.commands.length, 0);
    await this.#checkStreams(new Set(items.map(({ stream }) => this.#id(stream))), what);
  }

  /** Sends each of `commands` to stream `stream` on its own, all at once, and checks the outcome against some serial order. */
  async #race(stream: number, commands: readonly DeclaredCommand[], scheduler: fc.Scheduler | null, what: string): Promise<void> {
    const { handles, tally, time } = this.#world;
    const id = this.#id(stream);
    tally.races += 1;
    const calls = commands.map((command, i) => {
      const handle = handles[i % handles.length]!;
      const label = `${describeCommand(command)} on store ${i % handles.length}`;
      const start = scheduler === null ? Promise.resolve() : scheduler.schedule(Promise.resolve(), label);
      return start.then(() => handle.handle(id, command) as Promise<Answer>);
    });
    if (scheduler !== null) await scheduler.waitAll();
    const settled = await Promise.allSettled(calls);
    const outputs = await Promise.all(commands.map((command) => throughSchemas(this.#world.schemas, [command])));
    const raced: Raced[] = [];
    settled.forEach((outcome, i) => {
      const command = commands[i] as DeclaredCommand;
      const output = outputs[i]?.[0];
      if (outcome.status === "rejected") {
        const error = outcome.reason as Error;
        if (output === undefined && isVerqError(error, "VERQ_INVALID_PAYLOAD")) {
          tally.invalid += 1;
          return;
        }
        throw new RuleBroken("store", `${describeCommand(command)}, raced on ${id}, threw: ${error.message}`, { cause: error });
      }
      if (output === undefined) {
        throw new RuleBroken("commands", `${describeCommand(command)}, raced on ${id}: answered, though its schema refuses it`);
      }
      raced.push({ command: output, answer: outcome.value });
    });
    const model = this.#model(id);
    const logged = (await readLogs(this.#world, [id])).get(id) ?? [];
    const replayed = checkRace(this.#world.definition, this.#world.fencing, id, model, logged, raced, time.now);
    for (const { answer } of raced) {
      if (!answer.accepted) tally.refused += 1;
      else {
        tally.accepted += 1;
        tally.reached[answer.stream.state] = (tally.reached[answer.stream.state] ?? 0) + 1;
      }
    }
    tally.events += replayed.events.length - model.events.length;
    model.events.splice(0, model.events.length, ...replayed.events);
    model.state = replayed.state;
    await this.#checkStreams(new Set([id]), what);
  }

  /** The log of every stream of the run, and the projection of `touched`, against the model. */
  async #checkStreams(touched: ReadonlySet<string>, what: string): Promise<void> {
    const { definition } = this.#world;
    const logs = await readLogs(this.#world, this.#ids);
    for (const id of this.#ids) {
      const logged = logs.get(id) ?? [];
      checkLog(definition, id, what, logged, this.#model(id).events);
      checkTokens(definition, id, logged);
    }
    for (const id of touched) await checkProjection(this.#world, id, logs.get(id) ?? [], `after ${what}`, "projection");
  }

  /** An accepted decision: its state after is the fold of its events, each command one after another makes the same events, and fencing holds for each. */
  #checkAccepted({ what, commands, before, after, events }: Accepted): void {
    const { definition, fencing, time } = this.#world;
    checkFold(definition, what, before, after, events);
    let state = before;
    const stepwise: DeclaredEvent[] = [];
    for (const command of commands) {
      const decision = decideInModel(definition, state, time.now, [command]);
      if (!decision.accepted) {
        throw new RuleBroken(
          "decision",
          `${what} on ${before.id}: accepted together, but ${command.type} alone is refused ("${decision.refusal}")`,
        );
      }
      checkTake(definition, fencing, command, state, decision.after);
      stepwise.push(...decision.events);
      state = decision.after;
    }
    if (!same(stepwise, events)) {
      throw new RuleBroken(
        "decision",
        `${what} on ${before.id}: decided together they make ${text(events)}, one after another ${text(stepwise)}`,
      );
    }
  }

  #id(stream: number): string {
    const id = this.#ids[stream];
    if (id === undefined) throw new Error(`step names stream s${stream}, the run has ${this.#ids.length}`);
    return id;
  }

  #model(id: string): ModelStream {
    let model = this.#models.get(id);
    if (model === undefined) {
      model = { state: this.#world.definition.initial(id), events: [] };
      this.#models.set(id, model);
    }
    return model;
  }
}

/** Stream ids a query of {@link readLogs} names at most, well within both engines' limits on parameters. */
const IDS_PER_READ = 500;

/** The logged events of `ids`, by stream, in log order. */
export async function readLogs(world: RunWorld, ids: readonly string[]): Promise<Map<string, LoggedEvent[]>> {
  const logs = new Map<string, LoggedEvent[]>();
  for (let from = 0; from < ids.length; from += IDS_PER_READ) {
    for (const [id, events] of await readSomeLogs(world, ids.slice(from, from + IDS_PER_READ))) logs.set(id, events);
  }
  return logs;
}

async function readSomeLogs(world: RunWorld, ids: readonly string[]): Promise<Map<string, LoggedEvent[]>> {
  const logs = new Map<string, LoggedEvent[]>();
  const rows = await world.store.db
    .selectFrom("events")
    .select(["stream_id", "version", "type", "data", "at_ms", "schema_version"])
    .where("stream_type", "=", world.definition.name)
    .where("stream_id", "in", ids)
    .orderBy("position")
    .execute();
  for (const row of rows) {
    const list = logs.get(row.stream_id) ?? [];
    list.push({
      streamId: row.stream_id,
      version: Number(row.version),
      type: row.type,
      data: JSON.parse(row.data) as LoggedEvent["data"],
      at: Number(row.at_ms),
      schemaVersion: Number(row.schema_version),
    });
    logs.set(row.stream_id, list);
  }
  return logs;
}

/** The projection of stream `id` (`get`, or the own projection read back) is the fold of its logged events, null when it has none. */
export async function checkProjection(
  world: RunWorld,
  id: string,
  logged: readonly LoggedEvent[],
  when: string,
  rule: "projection" | "rebuild",
): Promise<void> {
  const { definition, own, handles, store } = world;
  const folded = logged.length === 0 ? null : definition.fold(definition.initial(id), logged);
  const got = own === undefined ? await storeCall(`get(${id})`, () => handles[0]!.get(id)) : await own.read(store.db, id);
  const expected = folded === null || own === undefined ? folded : (own.expected ?? ((s) => s.value))(folded);
  if (same(got, expected)) return;
  const source = own === undefined ? "get()" : "the own projection";
  const hint =
    own === undefined && folded !== null && got !== null
      ? " (the generic projection holds the machine's state after each decision: where it is not the fold, the machine and evolve disagree)"
      : "";
  throw new RuleBroken(
    rule,
    `stream ${id} ${when}: ${source} differs from the fold of its ${logged.length} logged event(s) at ${difference(got, expected)}${hint}`,
  );
}

/** The store's own `check()` (generic projection only) finds no problem with the streams `ids`. */
export async function checkStore(world: RunWorld, ids: readonly string[], rule: "check" | "rebuild"): Promise<void> {
  if (world.own !== undefined) return;
  const wanted = new Set(ids);
  const problems = (await storeCall("check()", () => world.handles[0]!.check())).filter((p) => wanted.has(p.streamId));
  if (problems.length > 0) {
    throw new RuleBroken(rule, `check() reports ${problems.map((p) => `${p.streamId}: ${p.problem}`).join(", ")}`);
  }
}

/** Runs a store call; its throw is the `store` rule's failure. */
async function storeCall<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new RuleBroken("store", `${what} threw: ${(error as Error).message}`, { cause: error });
  }
}
