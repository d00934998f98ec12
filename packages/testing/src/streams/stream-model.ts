import { randomUUID } from "node:crypto";
import type { DeclaredCommand, DeclaredStreamState, StreamDefinition } from "@verq/core";
import { declareStream, type VerqStore } from "@verq/store";
import fc from "fast-check";
import { createTestDatabase, type Engine } from "../engines/test-database.ts";
import {
  ModelRun,
  checkProjection,
  checkStore,
  readLogs,
  type OwnProjectionCheck,
  type RunWorld,
  type Tally,
} from "./model-run.ts";
import {
  RuleBroken,
  type AnyDefinition,
  type AnyState,
  type FencingUse,
  type ModelRule,
  type ModelState,
} from "./model-rules.ts";
import type { CommandSchemas } from "./model-schemas.ts";
import { plansArbitrary, type StepPlan } from "./model-steps.ts";

/** Where the stores of a check are opened: anything with `open()`, such as a `TestDatabase`. */
export interface StoreSource {
  open(): Promise<VerqStore>;
}

/** What {@link checkStreamModel} checks, and how hard. */
export interface StreamModelOptions<TState extends AnyState, TRefusal extends string> {
  /** The stream type under test: its `decide` and `fold` are the model. */
  readonly definition: StreamDefinition<TState, TRefusal>;
  /**
   * The commands runs send, every one of a declared command type: an arbitrary, or a function
   * giving the arbitrary for a stream's state in the model (to send mostly what its state
   * takes, so that runs go deep into the lifecycle).
   */
  readonly commands: fc.Arbitrary<DeclaredCommand> | ((state: DeclaredStreamState<TState>) => fc.Arbitrary<DeclaredCommand>);
  /**
   * Where the stores are: an engine (the check makes a test database of its own and removes it
   * at the end), or a database of the caller's (`await createTestDatabase(engine)`), which the
   * caller disposes. The check closes every store it opened.
   */
  readonly database: Engine | StoreSource;
  /** Prepares the first store opened, before any run: a service's own migrations (its projection's table). */
  readonly setup?: (store: VerqStore) => Promise<void>;
  /** The service's own projection, written instead of the generic one, and how to read it back. */
  readonly projection?: OwnProjectionCheck<TState>;
  /**
   * The command schemas the service declares the stream with (`declareStream`'s `schemas`): the
   * store checks each command against its type's schema and the model decides the schema's
   * output; a command its schema refuses must be refused as `VERQ_INVALID_PAYLOAD`, nothing
   * written (counted as `invalid`).
   */
  readonly schemas?: CommandSchemas;
  /** How the stream uses its holder token (needs the definition's `fencing`): which commands take it, which present it. */
  readonly fencing?: FencingUse;
  /** Runs (command sequences); 40 when not given. */
  readonly numRuns?: number;
  /** The seed of the runs: a random one when not given (the report and any failure name it). */
  readonly seed?: number;
  /** The path of a failure to replay, with its seed. */
  readonly path?: string;
  /** Streams each run sends commands to; 3 when not given. */
  readonly streams?: number;
  /** Most steps in a run; 16 when not given. */
  readonly maxSteps?: number;
  /**
   * Also race several commands on one stream at once, started in an order `fc.scheduler()`
   * draws: on PostgreSQL each from a store (connection) of its own, on SQLite through the one
   * store, which takes them one after another.
   */
  readonly concurrent?: boolean;
  /** Stores racing on PostgreSQL in a concurrent check; 3 when not given. */
  readonly connections?: number;
  /**
   * How long a failure is shrunk toward a smallest run, from the first failure found: 10 s when
   * not given; 0 reports the first failure as found. Each try of a shrink is a whole run on the
   * store, so a search can be long; the failure reported is the smallest found in that time.
   */
  readonly shrinkMs?: number;
}

/** What a passing check did, for a test to print ({@link describeStreamModelReport}). */
export interface StreamModelReport {
  readonly stream: string;
  readonly engine: Engine;
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  readonly commands: number;
  readonly accepted: number;
  readonly refused: number;
  readonly races: number;
  /** Commands their schema refused (and the store with them), when the check was given `schemas`. */
  readonly invalid: number;
  readonly events: number;
  /** Accepted decisions by the machine state they ended in (states never reached are absent): how deep the runs went. */
  readonly reached: Readonly<Record<string, number>>;
  readonly connections: number;
}

/** A check that failed: the broken rule's message first, then the seed, path and steps to replay it. */
export class StreamModelFailure extends Error {
  /** The rule broken, or null when a run threw something else. */
  readonly rule: ModelRule | null;
  readonly seed: number;
  readonly path: string | null;
  /** The steps of the (shrunk) failing run, as the message lists them. */
  readonly steps: readonly string[];

  constructor(
    message: string,
    fields: { rule: ModelRule | null; seed: number; path: string | null; steps: readonly string[]; cause: unknown },
  ) {
    super(message, { cause: fields.cause });
    this.name = "StreamModelFailure";
    this.rule = fields.rule;
    this.seed = fields.seed;
    this.path = fields.path;
    this.steps = fields.steps;
  }
}

/** The clock's time at the start of every run: 2026-01-01T00:00:00Z. */
const RUN_START_MS = 1_767_225_600_000;

/**
 * Checks a declared stream type against its own definition on a real store: fast-check draws
 * command sequences over a few streams, sends them through `declareStream(store, definition)`
 * at a fixed clock, and decides each alongside in a model (the fold of the events it saw
 * accepted, deciding with `definition.decide` at the same time). After every step it checks:
 *
 * - the store's answer is the model's decision: the same events and state after, or the same refusal;
 * - the log of each stream holds exactly the events of the accepted decisions, at versions 1..n,
 *   at their schema version: a refused command wrote nothing;
 * - each projection touched is the fold of its log (`get`, or the own projection read back),
 *   and each accepted decision's state after is the fold of its events;
 * - with fencing, the token never goes back (so a replaced token never comes back), and with
 *   {@link FencingUse} a take hands out a new token and a presented token is the current one;
 * - in a concurrent check, commands raced on one stream are explained by the log's order
 *   (each accepted one in it once, each answer what the model decides in that order).
 *
 * Each run ends with what the store's `check()` compares (for the run's streams), and the check
 * with `check()` itself, a `rebuild()` and every projection compared again. A broken rule throws
 * a {@link StreamModelFailure} whose message starts with the rule (`[fencing] …`), after
 * fast-check shrank the run toward a smallest one.
 *
 * @example
 * const report = await checkStreamModel({ definition: orderStream, commands: orderCommands, database: engine, numRuns: 40 });
 * console.log(describeStreamModelReport(report));
 */
export async function checkStreamModel<TState extends AnyState, TRefusal extends string>(
  options: StreamModelOptions<TState, TRefusal>,
): Promise<StreamModelReport> {
  const definition = options.definition as unknown as AnyDefinition;
  const numRuns = whole("numRuns", options.numRuns ?? 40, 1, 100_000);
  const streams = whole("streams", options.streams ?? 3, 1, 26);
  const maxSteps = whole("maxSteps", options.maxSteps ?? 16, 1, 1_000);
  const connections = whole("connections", options.connections ?? 3, 1, 4);
  const shrinkMs = whole("shrinkMs", options.shrinkMs ?? 10_000, 0, 3_600_000);
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fff_ffff);
  const concurrent = options.concurrent === true;
  if (options.fencing !== undefined && definition.fencing === null) {
    throw new TypeError(`stream type "${definition.name}" declares no fencing: the check's fencing option needs it`);
  }
  const owned = typeof options.database === "string" ? await createTestDatabase(options.database) : null;
  const source: StoreSource = owned ?? (options.database as StoreSource);
  const stores: VerqStore[] = [];
  try {
    const store = await source.open();
    stores.push(store);
    await options.setup?.(store);
    if (concurrent && store.dialect.name === "postgres") while (stores.length < connections) stores.push(await source.open());
    const time = { now: RUN_START_MS };
    const clock = { now: () => time.now };
    const own = options.projection as OwnProjectionCheck<AnyState> | undefined;
    const { schemas } = options;
    const handles = stores.map((s) => declareStream(s, definition, { clock, projection: own?.projection, schemas }));
    const tally: Tally = { steps: 0, commands: 0, accepted: 0, refused: 0, races: 0, invalid: 0, events: 0, reached: {} };
    const world: RunWorld = { definition, handles, store, time, own, fencing: options.fencing, schemas, tally };
    const prefix = `m${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    const given = options.commands as fc.Arbitrary<DeclaredCommand> | ((state: ModelState) => fc.Arbitrary<DeclaredCommand>);
    // A fixed arbitrary gives the commands themselves (shrunk like any value); a function of the
    // state gives a seed per command, drawn from the state's arbitrary when the step is sent, so
    // that removing a step while shrinking leaves the others' draws as they were.
    const slots: fc.Arbitrary<DeclaredCommand | number> = typeof given === "function" ? fc.noShrink(fc.integer()) : given;
    const draw = (state: ModelState, slot: DeclaredCommand | number): DeclaredCommand =>
      typeof slot === "number" && typeof given === "function" ? drawCommand(given(state), slot) : (slot as DeclaredCommand);
    let run = 0;
    let failed: readonly string[] = [];
    const property = fc.asyncProperty(
      plansArbitrary(slots, { streams, maxSteps, concurrent }),
      concurrent ? fc.scheduler() : fc.constant(null),
      async (plans, scheduler) => {
        run += 1;
        time.now = RUN_START_MS;
        const runIds = Array.from({ length: streams }, (_, k) => `${prefix}-${run}-s${k}`);
        ids.push(...runIds);
        const modelRun = new ModelRun(world, runIds);
        try {
          for (const plan of plans) await modelRun.step(plan, draw, scheduler);
          await modelRun.finish();
        } catch (error) {
          // The last run that failed is the one fast-check reports: the smallest it shrank to.
          failed = modelRun.described;
          throw error;
        }
      },
    );
    const details = await fc.check(property, {
      numRuns,
      seed,
      path: options.path,
      endOnFailure: shrinkMs === 0,
      plugins: [shrinkFor(shrinkMs)],
    });
    if (details.failed) throw failure(definition.name, store.dialect.name, details, failed);
    await checkRebuilt(world, ids);
    // States in the machine's order, those never reached left out.
    const states = Object.keys(definition.machine.root.states).filter((state) => state in tally.reached);
    const reached = Object.fromEntries(states.map((state) => [state, tally.reached[state] ?? 0]));
    const engine = store.dialect.name;
    return { stream: definition.name, engine, seed, runs: details.numRuns, ...tally, reached, connections: stores.length };
  } finally {
    for (const store of stores) await store.close();
    await owned?.dispose();
  }
}

/** One line for a test to print: `order on postgres: 40 runs, 385 commands (…), seed 123`. */
export function describeStreamModelReport(report: StreamModelReport): string {
  const races = report.races === 0 ? "" : `, ${report.races} races over ${report.connections} store(s)`;
  return (
    `${report.stream} on ${report.engine}: ${report.runs} runs, ${report.steps} steps, ${report.commands} commands ` +
    `(${report.accepted} accepted, ${report.refused} refused${report.invalid === 0 ? "" : `, ${report.invalid} refused by their schema`}), ` +
    `${report.events} events${races}, seed ${report.seed}; ` +
    `states reached: ${
      Object.entries(report.reached)
        .map(([state, n]) => `${state} ${n}`)
        .join(", ") || "none"
    }`
  );
}

/** The store's `check()` finds nothing, and after `rebuild()` every stream the runs wrote is still the fold of its log and `check()` still finds nothing. */
async function checkRebuilt(world: RunWorld, ids: readonly string[]): Promise<void> {
  await checkStore(world, ids, "check");
  await world.handles[0]!.rebuild();
  const logs = await readLogs(world, ids);
  for (const id of ids) await checkProjection(world, id, logs.get(id) ?? [], "after rebuild()", "rebuild");
  await checkStore(world, ids, "rebuild");
}

/** The failure of a check: the rule's message, then where to replay it from and the steps of the failing run. */
function failure(
  stream: string,
  engine: Engine,
  details: fc.RunDetails<[StepPlan<DeclaredCommand | number>[], fc.Scheduler | null]>,
  steps: readonly string[],
): StreamModelFailure {
  const error = details.errorInstance;
  const rule = error instanceof RuleBroken ? error.rule : null;
  const first =
    error instanceof Error ? (rule === null ? `a run threw: ${error.message}` : error.message) : `a run threw: ${String(error)}`;
  const scheduler = details.counterexample?.[1] ?? null;
  const path = details.counterexamplePath;
  const replay = path === null ? `seed ${details.seed}` : `{ seed: ${details.seed}, path: "${path}" }`;
  const lines = [
    first,
    `stream model of "${stream}" on ${engine} failed after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s); replay with ${replay}`,
    `steps of the failing run (streams s0, s1, …):`,
    ...steps.map((step, i) => `  ${i + 1}. ${step}`),
  ];
  if (scheduler !== null) {
    lines.push(
      `race starts, in order: ${
        scheduler
          .report()
          .map((task) => task.label)
          .join(" → ") || "none"
      }`,
    );
  }
  return new StreamModelFailure(lines.join("\n"), { rule, seed: details.seed, path, steps, cause: error });
}

/**
 * A fast-check plugin that lets the shrinking of a failure go on for `limitMs` after the first
 * failure, then skips every run not yet begun: the shrinking ends at once, with the smallest
 * failure found so far. A run that has begun always ends (it holds the store), and nothing is
 * skipped before a failure, so a passing check always makes all its runs.
 */
function shrinkFor<Ts>(limitMs: number): fc.Plugin<Ts> {
  return () => {
    let ends = Number.POSITIVE_INFINITY;
    return {
      decorateRun: (run) => (value) => {
        if (Date.now() >= ends) return Promise.resolve(new fc.PreconditionFailure(true));
        const out = run(value) as Promise<fc.PreconditionFailure | fc.PropertyFailure | null>;
        return out.then((outcome) => {
          if (outcome !== null && !fc.PreconditionFailure.isFailure(outcome) && ends === Number.POSITIVE_INFINITY)
            ends = Date.now() + limitMs;
          return outcome;
        });
      },
    };
  };
}

/** The command `arbitrary` gives for `seed`: the same seed, the same command. */
function drawCommand(arbitrary: fc.Arbitrary<DeclaredCommand>, seed: number): DeclaredCommand {
  const [command] = fc.sample(arbitrary, { seed, numRuns: 1 });
  if (command === undefined) throw new Error("the commands arbitrary gave no command");
  return command;
}

function whole(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}
