import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EventReader, JsonObject } from "@verq/core";

/**
 * One event type's shape: its schema version and the JSON kinds of each field, by path
 * (`customer`, `address.city`, `lines[]`, `lines[].sku`). A field's kinds are joined with `|`
 * in a fixed order (`null|string`); `absent` marks a field some samples lack.
 */
export interface EventShape {
  readonly version: number;
  readonly fields: Readonly<Record<string, string>>;
}

/** The shapes of a stream type's events, as the snapshot file keeps them. */
export interface EventShapes {
  readonly stream: string;
  readonly events: Readonly<Record<string, EventShape>>;
}

/** An event as a sample: its type and data, and the schema version it was stored at (the current one when not given). */
export interface SampleEvent {
  readonly type: string;
  readonly data: unknown;
  readonly schemaVersion?: number;
}

/**
 * Sample events: for each event type one data object or several, or events as recorded (read
 * from a store, or decided by the stream), older ones upcast to their type's current version.
 */
export type EventSamples = Readonly<Record<string, JsonObject | readonly JsonObject[]>> | Iterable<SampleEvent>;

/** What {@link expectEventShapes} did to the snapshot file. */
export interface EventShapesOutcome {
  /** The snapshot file's path. */
  readonly file: string;
  /** True when the file was written (made, or given new event types or versions). */
  readonly written: boolean;
  /** Event types the snapshot did not have yet. */
  readonly added: readonly string[];
  /** Event types whose version went up since the snapshot: their new shape is recorded. */
  readonly bumped: readonly string[];
}

const KINDS = ["absent", "array", "boolean", "null", "number", "object", "string"] as const;

/**
 * The shape of each event type of `samples` under `definition` (see {@link EventShape}): the
 * same samples always give the same shapes, with fields and types in sorted order.
 */
export function eventShapes(definition: EventReader, samples: EventSamples): EventShapes {
  const byType = new Map<string, JsonObject[]>();
  for (const { type, data } of sampleEvents(definition, samples)) {
    if (typeof data !== "object" || data === null || Array.isArray(data))
      throw new TypeError(`a sample of event ${type} has data that is not an object`);
    if (typeof (data as { at?: unknown }).at !== "number")
      throw new TypeError(`a sample of event ${type} has no numeric data.at`);
    byType.set(type, [...(byType.get(type) ?? []), data as JsonObject]);
  }
  const events: Record<string, EventShape> = {};
  for (const type of [...byType.keys()].sort()) {
    const kinds = new Map<string, Set<string>>();
    const datas = byType.get(type) ?? [];
    for (const data of datas) walk(data, "", kinds);
    // A path some samples lack (their parent present or not) is optional.
    for (const [field, seen] of kinds) if (datas.some((data) => !has(data, field))) seen.add("absent");
    const fields: Record<string, string> = {};
    for (const field of [...kinds.keys()].sort()) fields[field] = KINDS.filter((k) => kinds.get(field)?.has(k)).join("|");
    events[type] = { version: definition.schemaVersion(type), fields };
  }
  return { stream: definition.name, events };
}

/**
 * Compares the shapes of `samples` with the snapshot at `snapshot` (a path or a `file:` URL,
 * e.g. `new URL("./order-events.snapshot.json", import.meta.url)`), to be committed beside the
 * test. A missing file is written (and said so). A shape that changed at the same version
 * throws, naming the event type and the fields: events of the old shape stay in the log, so a
 * change needs a new version in the definition's `events`, with its upcaster. A higher version
 * records the type's new shape; a new event type is added; a type of the snapshot without a
 * sample, or at a lower version, throws.
 *
 * @example await expectEventShapes(orderStream, orderEventSamples, new URL("./order-events.snapshot.json", import.meta.url));
 */
export async function expectEventShapes(
  definition: EventReader,
  samples: EventSamples,
  snapshot: string | URL,
): Promise<EventShapesOutcome> {
  const file = typeof snapshot === "string" ? path.resolve(snapshot) : fileURLToPath(snapshot);
  const current = eventShapes(definition, samples);
  const stored = await readSnapshot(file);
  if (stored === null) {
    await writeSnapshot(file, current);
    console.log(
      `[verq] event shapes: wrote ${file} (${Object.keys(current.events).length} event types of "${current.stream}"); commit it`,
    );
    return { file, written: true, added: Object.keys(current.events), bumped: [] };
  }
  if (stored.stream !== current.stream) {
    throw new Error(`event shapes: ${file} is the snapshot of stream type "${stored.stream}", not "${current.stream}"`);
  }
  const added: string[] = [];
  const bumped: string[] = [];
  const problems: string[] = [];
  for (const [type, was] of Object.entries(stored.events)) {
    const now = current.events[type];
    if (now === undefined) {
      problems.push(`event ${type} has no sample: give one (its events stay in the log, so its shape is still checked)`);
    } else if (now.version < was.version) {
      problems.push(`event ${type} is at version ${now.version}, below the snapshot's ${was.version}`);
    } else if (now.version > was.version) {
      bumped.push(type);
    } else {
      const changes = fieldChanges(was.fields, now.fields);
      if (changes.length > 0) {
        problems.push(
          `event ${type} changed its shape at version ${now.version}: ${changes.join("; ")}. ` +
            `Events of the old shape stay in the log: declare version ${now.version + 1} in the definition's events with an upcaster from ${now.version}`,
        );
      }
    }
  }
  if (problems.length > 0) throw new Error(`event shapes of "${current.stream}" (${file}):\n- ${problems.join("\n- ")}`);
  for (const type of Object.keys(current.events)) if (stored.events[type] === undefined) added.push(type);
  if (added.length === 0 && bumped.length === 0) return { file, written: false, added, bumped };
  // Types of the snapshot keep their recorded shape unless their version went up.
  const events: Record<string, EventShape> = { ...stored.events };
  for (const type of [...added, ...bumped]) events[type] = current.events[type] as EventShape;
  await writeSnapshot(file, { stream: current.stream, events });
  const said = [...added.map((t) => `new ${t}`), ...bumped.map((t) => `${t} now at version ${current.events[t]?.version}`)];
  console.log(`[verq] event shapes: updated ${file} (${said.join(", ")}); commit it`);
  return { file, written: true, added, bumped };
}

/** Each sample as `{ type, data }`, upcast to its type's current version. */
function* sampleEvents(definition: EventReader, samples: EventSamples): Generator<{ type: string; data: unknown }> {
  if (Symbol.iterator in samples) {
    for (const event of samples as Iterable<SampleEvent>) {
      const from = event.schemaVersion ?? definition.schemaVersion(event.type);
      yield { type: event.type, data: definition.upcast(event.type, from, event.data as JsonObject) };
    }
    return;
  }
  for (const [type, given] of Object.entries(samples as Readonly<Record<string, JsonObject | readonly JsonObject[]>>)) {
    for (const data of Array.isArray(given) ? (given as readonly JsonObject[]) : [given as JsonObject]) yield { type, data };
  }
}

/** Adds the kind of each field under `prefix` of `value` to `kinds`. */
function walk(value: unknown, prefix: string, kinds: Map<string, Set<string>>): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) {
      note(kinds, `${prefix}[]`, item);
      walk(item, `${prefix}[]`, kinds);
    }
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const field = prefix === "" ? key : `${prefix}.${key}`;
    note(kinds, field, item);
    walk(item, field, kinds);
  }
}

function note(kinds: Map<string, Set<string>>, field: string, value: unknown): void {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const seen = kinds.get(field) ?? new Set<string>();
  seen.add(kind);
  kinds.set(field, seen);
}

/** True when `data` has the field at `field` (a path of {@link walk}); array paths count as present. */
function has(data: unknown, field: string): boolean {
  let value: unknown = data;
  for (const part of field.split(".")) {
    if (part.endsWith("[]")) return true;
    if (typeof value !== "object" || value === null || !(part in value)) return false;
    value = (value as Record<string, unknown>)[part];
  }
  return true;
}

/** How `now` differs from `was`, one phrase per field: removed, new, or of other kinds. */
function fieldChanges(was: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string[] {
  const changes: string[] = [];
  for (const field of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
    const before = was[field];
    const after = now[field];
    if (before === after) continue;
    if (after === undefined) changes.push(`field "${field}" (${before}) is gone`);
    else if (before === undefined) changes.push(`field "${field}" (${after}) is new`);
    else changes.push(`field "${field}" was ${before}, is now ${after}`);
  }
  return changes;
}

async function readSnapshot(file: string): Promise<EventShapes | null> {
  let body: string;
  try {
    body = await fs.promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const parsed = JSON.parse(body) as Partial<EventShapes>;
  if (typeof parsed.stream !== "string" || typeof parsed.events !== "object" || parsed.events === null) {
    throw new Error(`event shapes: ${file} is not a snapshot of event shapes`);
  }
  return parsed as EventShapes;
}

/** Writes `shapes` with event types in sorted order, two spaces, and a final newline: the same shapes always give the same file. */
async function writeSnapshot(file: string, shapes: EventShapes): Promise<void> {
  const events: Record<string, EventShape> = {};
  for (const type of Object.keys(shapes.events).sort()) events[type] = shapes.events[type] as EventShape;
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.writeFile(file, `${JSON.stringify({ stream: shapes.stream, events }, null, 2)}\n`);
}
