import {
  STREAM_TYPES,
  VerqError,
  canonicalJson,
  checkIdentifier,
  describeCommandType,
  systemClock,
  type Clock,
  type DeclaredCommand,
  type DeclaredEvent,
  type DeclaredStreamState,
  type JsonObject,
  type AnyStreamDefinition,
  type StreamDefinition,
} from "@verq/core";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { Kysely } from "kysely";
import { handleMany, retryOnVersionConflict, WITNESSED, type StreamProjection } from "../command-path.ts";
import { issuePaths } from "../jobs/job-kind.ts";
import { checkOuterTransaction } from "../outer-transaction.ts";
import type { VerqDatabase } from "../schema.ts";
import { readStream } from "../sql/events/readStream.ts";
import type { StoredEvent } from "../sql/events/storedEvent.ts";
import type { VerqStore } from "../store.ts";
import { declaredProjection, type OwnProjection } from "./declared-projection.ts";
import { byStreamType, upcastEvents } from "./upcast-events.ts";
import { checkDeclaredStates, rebuildDeclared, type DeclaredProblem } from "./declared-rebuild.ts";

/** What a command against a declared stream came to: its events and the state after, or the refusal and the state it refused from. */
export type HandleResult<TState, TRefusal> =
  | { readonly accepted: true; readonly stream: DeclaredStreamState<TState>; readonly events: readonly DeclaredEvent[] }
  | {
      readonly accepted: false;
      readonly refusal: TRefusal;
      /** The type of the command refused (in a sequence, the first one refused). */
      readonly command: string;
      readonly stream: DeclaredStreamState<TState>;
    };

/** One stream and its commands, for {@link DeclaredStream.handleMany}. */
export interface DeclaredItem {
  readonly id: string;
  readonly commands: readonly DeclaredCommand[];
}

/** Settings of {@link declareStream}. */
export interface DeclareOptions<TState> {
  /**
   * The Standard Schema (zod, valibot, arktype, …) of a command type's fields, the type
   * included: a command that does not match is `VERQ_INVALID_PAYLOAD` naming where (never what),
   * before anything is read, and the schema's output is what the machine decides.
   */
  readonly schemas?: Readonly<Record<string, StandardSchemaV1>>;
  /** The service's own projection, instead of the generic `stream_states` row. */
  readonly projection?: OwnProjection<TState>;
  readonly clock?: Clock;
}

/** Where a command runs: in the service's own transaction (`trx`, from `store.transaction`), or in one of its own. */
export interface HandleOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a transaction typed with the service's own tables too
  readonly trx?: Kysely<any>;
}

/** The stream types declared on each open store: a name is one definition's per store. */
const declared = new WeakMap<VerqStore, Map<string, AnyStreamDefinition>>();

/**
 * Declares a stream type on an open store and returns its handle. A name another definition
 * already took on this store, or one of verq's own stream types, is `VERQ_STREAM_TYPE_TAKEN`
 * (declaring the same definition again returns a new handle on it).
 */
export function declareStream<TState extends JsonObject & { readonly state: string }, TRefusal extends string>(
  store: VerqStore,
  definition: StreamDefinition<TState, TRefusal>,
  options: DeclareOptions<TState> = {},
): DeclaredStream<TState, TRefusal> {
  if ((STREAM_TYPES as readonly string[]).includes(definition.name)) {
    throw new VerqError(
      "VERQ_STREAM_TYPE_TAKEN",
      `stream type "${definition.name}" is one of verq's own: the store keeps it in its own tables`,
    );
  }
  const names = declared.get(store) ?? new Map<string, AnyStreamDefinition>();
  const taken = names.get(definition.name);
  if (taken !== undefined && taken !== definition) {
    throw new VerqError(
      "VERQ_STREAM_TYPE_TAKEN",
      `stream type "${definition.name}" is already declared on this store by another definition`,
    );
  }
  names.set(definition.name, definition);
  declared.set(store, names);
  return new DeclaredStream(store, definition, options);
}

/** The definitions declared on `store`, by name (what `verq check` and the dashboard read for it). */
export function declaredStreams(store: VerqStore): ReadonlyMap<string, AnyStreamDefinition> {
  return declared.get(store) ?? new Map();
}

/**
 * A stream type of the service's own on one store: commands decided by its machine and appended
 * with the UNIQUE(stream_type, stream_id, version) arbiter, its projection written in the same
 * transaction, on SQLite and PostgreSQL alike. Made by {@link declareStream}.
 */
export class DeclaredStream<TState extends JsonObject & { readonly state: string }, TRefusal extends string> {
  readonly definition: StreamDefinition<TState, TRefusal>;
  readonly #store: VerqStore;
  readonly #projection: StreamProjection<DeclaredStreamState<TState>, DeclaredEvent>;
  readonly #own: OwnProjection<TState> | undefined;
  readonly #clock: Clock;
  readonly #schemas: Readonly<Record<string, StandardSchemaV1>>;

  constructor(store: VerqStore, definition: StreamDefinition<TState, TRefusal>, options: DeclareOptions<TState>) {
    this.#store = store;
    this.definition = definition;
    this.#own = options.projection;
    this.#projection = declaredProjection(definition, options.projection);
    this.#clock = options.clock ?? systemClock;
    this.#schemas = options.schemas ?? {};
    for (const [type, schema] of Object.entries(this.#schemas)) {
      if (!definition.commandTypes.has(type))
        throw new VerqError(
          "VERQ_UNKNOWN_COMMAND",
          `a schema for "${type}", which stream type "${definition.name}" does not take`,
        );
      const standard = (schema as { "~standard"?: { version?: unknown } } | null)?.["~standard"];
      if (standard?.version !== 1)
        throw new VerqError("VERQ_INVALID_ARGUMENT", `the schema of command "${type}" is not a Standard Schema (v1)`);
    }
  }

  /**
   * Decides `command` (or several, in order: all accepted or none) against stream `id` with the
   * machine, at the clock's time, and appends its events with the projection, in one transaction
   * (`options.trx`: the service's own, where a version conflict is thrown for it to roll back;
   * otherwise one of its own, decided again from a fresh load after a conflict). A refusal is
   * data and writes nothing. Bad input (`VERQ_INVALID_ID`, `VERQ_UNKNOWN_COMMAND`,
   * `VERQ_INVALID_PAYLOAD`) is thrown before anything is read.
   */
  async handle(
    id: string,
    command: DeclaredCommand | readonly DeclaredCommand[],
    options: HandleOptions = {},
  ): Promise<HandleResult<TState, TRefusal>> {
    const commands = Array.isArray(command) ? (command as readonly DeclaredCommand[]) : [command as DeclaredCommand];
    const [result] = await this.handleMany([{ id, commands }], options);
    if (result === undefined) throw new Error(`no decision for stream ${id}`);
    return result;
  }

  /** {@link handle} for many streams in one transaction, each item decided after the ones before it (two items of one stream chain). */
  async handleMany(given: readonly DeclaredItem[], options: HandleOptions = {}): Promise<HandleResult<TState, TRefusal>[]> {
    if (!Array.isArray(given)) throw new VerqError("VERQ_INVALID_ARGUMENT", "handleMany takes an array of { id, commands }");
    const items: DeclaredItem[] = [];
    for (const item of given as readonly DeclaredItem[]) items.push(await this.#checkItem(item));
    const outer = checkOuterTransaction(options.trx);
    if (outer !== undefined) return this.#handleIn(outer, items);
    return retryOnVersionConflict(() => this.#store.transaction((trx) => this.#handleIn(trx, items), undefined, WITNESSED));
  }

  /** The stream's state now, or null when it has no event yet. */
  async get(id: string): Promise<DeclaredStreamState<TState> | null> {
    checkIdentifier(id, "a stream id");
    return (await this.#store.read((db) => this.#projection.load(db, [id]))).get(id) ?? null;
  }

  /**
   * Streams in one machine state, in id order after `after`, at most `limit` (1 to 1,000): read
   * from the generic projection (a stream type with its own projection is queried through it).
   */
  async list(
    filter: { readonly state?: string; readonly after?: string; readonly limit?: number } = {},
  ): Promise<DeclaredStreamState<TState>[]> {
    this.#requireGeneric("list");
    if (filter.state !== undefined && !this.definition.states.includes(filter.state)) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", `state must be one of ${this.definition.states.join(", ")}`);
    }
    const limit = filter.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", "limit must be a whole number from 1 to 1000");
    }
    const rows = await this.#store.read((db) => {
      let query = db
        .selectFrom("stream_states")
        .select(["stream_id", "state", "version", "value"])
        .where("stream_type", "=", this.definition.name);
      if (filter.state !== undefined) query = query.where("state", "=", filter.state);
      if (filter.after !== undefined) query = query.where("stream_id", ">", filter.after);
      return query.orderBy("stream_id").limit(limit).execute();
    });
    return rows.map((row) => ({
      id: row.stream_id,
      state: row.state,
      version: Number(row.version),
      value: JSON.parse(row.value) as TState,
    }));
  }

  /** How many streams are in each machine state (every state of the machine, 0 included). */
  async countByState(): Promise<Record<string, number>> {
    this.#requireGeneric("countByState");
    const counts: Record<string, number> = Object.fromEntries(
      Object.keys(this.definition.machine.root.states).map((s) => [s, 0]),
    );
    const rows = await this.#store.read((db) =>
      db
        .selectFrom("stream_states")
        .select((eb) => ["state", eb.fn.countAll<number>().as("n")])
        .where("stream_type", "=", this.definition.name)
        .groupBy("state")
        .execute(),
    );
    for (const row of rows) counts[row.state] = Number(row.n);
    return counts;
  }

  /** A stream's events in version order, each upcast to its event type's current schema version. */
  async events(id: string): Promise<StoredEvent<JsonObject>[]> {
    checkIdentifier(id, "a stream id");
    const stored = await this.#store.read((db) => readStream(db, this.definition.name, id));
    return upcastEvents(stored as StoredEvent<JsonObject>[], byStreamType([this.definition]));
  }

  /** Recomputes the projection of every stream of this type from the log, in one transaction; returns how many streams it wrote. */
  async rebuild(): Promise<number> {
    return this.#store.transaction((trx) => rebuildDeclared(trx, this.definition, this.#own));
  }

  /** The streams whose generic projection differs from the fold of their log (none in a sound store). */
  async check(): Promise<DeclaredProblem[]> {
    this.#requireGeneric("check");
    return this.#store.read((db) => checkDeclaredStates(db, this.definition));
  }

  async #handleIn(trx: Kysely<VerqDatabase>, items: readonly DeclaredItem[]): Promise<HandleResult<TState, TRefusal>[]> {
    const now = this.#clock.now();
    const { definition } = this;
    const decided = await handleMany(
      trx,
      this.#store.dialect,
      this.#projection,
      (state: DeclaredStreamState<TState>, ...commands: readonly DeclaredCommand[]) => definition.decide(state, now, ...commands),
      items.map((item) => ({ id: item.id, commands: item.commands })),
      (id) => definition.initial(id),
    );
    return decided.map(({ before, decision }) =>
      decision.accepted
        ? { accepted: true, stream: decision.after, events: decision.events }
        : { accepted: false, refusal: decision.refusal, command: decision.command, stream: before },
    );
  }

  /** The item with its commands checked (and each through its schema, if any), or the coded error. */
  async #checkItem(item: DeclaredItem): Promise<DeclaredItem> {
    checkIdentifier(item?.id, "a stream id");
    if (!Array.isArray(item.commands) || item.commands.length === 0) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", "each stream needs at least one command");
    }
    const commands: DeclaredCommand[] = [];
    for (const command of item.commands as readonly DeclaredCommand[]) {
      const type: unknown = (command as { type?: unknown } | null)?.type;
      if (typeof type !== "string" || !this.definition.commandTypes.has(type)) {
        throw new VerqError(
          "VERQ_UNKNOWN_COMMAND",
          `stream type "${this.definition.name}" takes no command ${describeCommandType(type)}`,
        );
      }
      const schema = this.#schemas[type];
      const checked = schema === undefined ? command : await validCommand(schema, type, command);
      canonicalJson(checked, "command");
      commands.push(checked);
    }
    return { id: item.id, commands };
  }

  #requireGeneric(what: string): void {
    if (this.#own !== undefined) {
      throw new VerqError(
        "VERQ_INVALID_ARGUMENT",
        `stream type "${this.definition.name}" keeps its own projection: ${what} reads it there`,
      );
    }
  }
}

/** The schema's output for a command, or `VERQ_INVALID_PAYLOAD` naming where it failed. */
async function validCommand(schema: StandardSchemaV1, type: string, command: DeclaredCommand): Promise<DeclaredCommand> {
  const result = await schema["~standard"].validate(command);
  if (result.issues !== undefined) {
    throw new VerqError("VERQ_INVALID_PAYLOAD", `command "${type}" does not match its schema at ${issuePaths(result.issues)}`);
  }
  const output = result.value as DeclaredCommand | null;
  if (typeof output !== "object" || output === null || output.type !== type) {
    throw new VerqError("VERQ_INVALID_PAYLOAD", `the schema of command "${type}" must keep its type`);
  }
  return output;
}
