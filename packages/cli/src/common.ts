import { statSync } from "node:fs";
import { isIP } from "node:net";
import { basename, dirname, resolve } from "node:path";
import { MessageError, VerqError, canonicalJson } from "@verq/core";
import type { StoredEvent, VerqStore } from "@verq/store";
import { EXIT } from "./exit-codes.ts";
import { FETCH_BAD_PORTS } from "./fetch-bad-ports.ts";
import type { JsonOptions } from "./options.ts";
import { reportError, type CliContext } from "./output.ts";

/*
 * What the actions of every `verq` area share. An area's `<area>-commands.ts` declares its
 * commands and options (./options.ts) and loads the module of its actions only when one runs.
 * An action reads its options as strings, checks all of them with the parsers below before it
 * opens anything, then opens its store with `withStore`, all inside `runCommand`, which turns a
 * thrown error into its exit code:
 *
 *   // area-commands.ts
 *   const actions = () => import("./area-actions.ts");
 *   area.command("name").addOption(dbOption()).addOption(jsonOption())
 *     .action(async (o: NameOptions) => (await actions()).name(context, o));
 *
 *   // area-actions.ts
 *   export const name = (context: CliContext, o: NameOptions) =>
 *     runCommand(context, o, () => {
 *       const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
 *       return withStore(o.db, async (store) => { … return EXIT.ok; });
 *     });
 */

/**
 * Runs a command's body and sets the process exit code: the code the body returns (0 when it
 * returns none), or, when it throws, the code {@link reportError} gives the error after printing
 * it (`verq: CODE: message` on stderr, or JSON on stdout with `--json`).
 */
export async function runCommand(
  context: CliContext,
  options: JsonOptions,
  body: () => Promise<number | void> | number | void,
): Promise<void> {
  try {
    context.setExitCode((await body()) ?? EXIT.ok);
  } catch (error) {
    context.setExitCode(reportError(context.io, options.json === true, error));
  }
}

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);
const quoted = (text: string) => JSON.stringify(text.slice(0, 80));

/** A URL's scheme (`mysql` of `mysql://…`), or null for anything else, such as a file path. */
const urlScheme = (text: string): string | null => /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1] ?? null;

/** How {@link withStore} opens a store. */
export interface StoreUse {
  /**
   * True for a command that only reads (and `files replay`, which records into a ledger that
   * must be there): the store must exist. A SQLite file that does not exist is
   * `VERQ_FILE_NOT_FOUND` (exit 4); a database, file or schema without verq's tables is
   * `VERQ_STORE_NOT_INITIALIZED` (exit 4); nothing is created either way (`create: false`).
   */
  readonly mustExist?: boolean;
}

/** What a command that only reads passes to {@link withStore}. */
export const READ_ONLY: StoreUse = { mustExist: true };

/**
 * Opens the store at `db` (a SQLite file, or a PostgreSQL URL), runs `work` on it and closes it,
 * whatever `work` does. A URL of any other scheme is `VERQ_INVALID_ARGUMENT` (exit 2), never a
 * file of that name. A store is created (the SQLite file, or verq's tables in the PostgreSQL
 * database) only by a command that writes, or by `verq init`; with `mustExist` (every command
 * that only reads, {@link READ_ONLY}) a store that is not there is exit 4 and nothing is created,
 * so a mistyped `--db` never leaves an empty store behind. A PostgreSQL database or schema is
 * never created; a PostgreSQL URL that is malformed, or a server that cannot be used, is
 * `VERQ_STORE_UNREACHABLE` (exit 1), naming the host, never the password.
 */
export async function withStore<T>(db: string, work: (store: VerqStore) => Promise<T>, options: StoreUse = {}): Promise<T> {
  // Loaded here, not at the top: a command that opens no store (files init, lag) never loads it.
  const { isPostgresUrl, openStore } = await import("@verq/store");
  const postgres = isPostgresUrl(db);
  const scheme = postgres ? null : urlScheme(db);
  if (scheme !== null) {
    // Only the scheme is quoted back: the rest of a URL may carry a password.
    throw invalid(`--db takes a SQLite file or a postgres:// (postgresql://) URL, not a ${scheme}:// URL`);
  }
  const create = options.mustExist !== true;
  if (!postgres && db !== ":memory:") checkSqliteFile(db, !create);
  const store = await openStore(postgres ? { url: db, create, ...postgresFromEnv(process.env) } : { path: db, create });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * What the environment sets of a PostgreSQL store's options (docs/cli.md): `VERQ_RECONNECT_MS`
 * (how long a command tries to get a lost connection back), `VERQ_LISTEN_URL` (where workers'
 * wake-ups listen: a URL past a pooler, or `none` to poll) and `VERQ_PREPARED_STATEMENTS=off`
 * (behind a pooler in transaction mode). A value that means nothing is `VERQ_INVALID_ARGUMENT`.
 */
export function postgresFromEnv(env: NodeJS.ProcessEnv): {
  reconnectMs?: number;
  listenUrl?: string | null;
  preparedStatements?: boolean;
} {
  const options: { reconnectMs?: number; listenUrl?: string | null; preparedStatements?: boolean } = {};
  const reconnect = env.VERQ_RECONNECT_MS;
  if (reconnect !== undefined && reconnect !== "") {
    if (!/^\d{1,9}$/.test(reconnect)) throw invalid("VERQ_RECONNECT_MS must be a whole number of milliseconds");
    options.reconnectMs = Number(reconnect);
  }
  const listen = env.VERQ_LISTEN_URL;
  if (listen !== undefined && listen !== "") options.listenUrl = listen === "none" ? null : listen;
  const prepared = env.VERQ_PREPARED_STATEMENTS;
  if (prepared !== undefined && prepared !== "") {
    if (prepared !== "on" && prepared !== "off") throw invalid("VERQ_PREPARED_STATEMENTS must be on or off");
    options.preparedStatements = prepared === "on";
  }
  return options;
}

/**
 * Checks a SQLite `--db` before it is opened, so that a bad one creates nothing: a well-formed
 * path ({@link parsePath}) that is not a folder, in a folder that exists (else
 * `VERQ_FILE_NOT_FOUND`, exit 4, as for a file that must exist and does not).
 */
function checkSqliteFile(db: string, mustExist: boolean): void {
  parsePath(db, "--db");
  const stat = statSync(db, { throwIfNoEntry: false });
  if (stat?.isDirectory() === true) throw invalid(`--db must be a SQLite file, not the folder ${quoted(db)}`);
  if (stat === undefined && mustExist) {
    throw new MessageError("VERQ_FILE_NOT_FOUND", `no database at ${db}; check --db (verq init --db ${db} creates a store)`);
  }
  if (stat === undefined && statSync(dirname(resolve(db)), { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new MessageError("VERQ_FILE_NOT_FOUND", `no folder ${dirname(resolve(db))} to create the database in; check --db`);
  }
}

/** The longest path a command takes (Linux's PATH_MAX), and the longest name in it (NAME_MAX), in bytes. */
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

/**
 * A file or folder path given as `what`: not empty, no longer than the system takes (4096 bytes,
 * 255 a name). Anything else is `VERQ_INVALID_ARGUMENT` (exit 2), checked before anything is
 * opened or created (an empty ROOT would otherwise be the current folder).
 */
export function parsePath(text: string, what: string): string {
  if (text.trim() === "") throw invalid(`${what} must name a file or folder; got ${quoted(text)}`);
  const tooLong =
    Buffer.byteLength(text) > MAX_PATH_BYTES || text.split(/[\\/]/).some((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
  if (tooLong)
    throw invalid(`${what} is too long (at most ${MAX_PATH_BYTES} bytes, ${MAX_NAME_BYTES} a name): ${quoted(basename(text))}…`);
  return text;
}

/**
 * `--host` of a command that listens: an IP address, `localhost` or a host name (letters,
 * digits and `-` in dot-separated labels). Anything else is `VERQ_INVALID_ARGUMENT` (exit 2),
 * before the store is opened; a name that does not resolve fails when the server listens.
 */
export function parseListenHost(text: string, what = "--host"): string {
  const label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  if (isIP(text) !== 0 || (text.length <= 253 && new RegExp(`^${label}(?:\\.${label})*$`).test(text))) return text;
  throw invalid(`${what} must be an IP address or a host name such as 127.0.0.1; got ${quoted(text)}`);
}

/** A server a command starts: a Fastify app, as far as {@link listenOn} uses it. */
export interface Listener {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<unknown>;
}

/**
 * Starts `app` listening on `host:port` and resolves to its address. A port that another process
 * holds is `VERQ_PORT_IN_USE` (exit 1), naming `host:port`, and the app is closed; any other
 * failure is thrown as it is.
 */
export async function listenOn(app: Listener, port: number, host: string): Promise<string> {
  try {
    return await app.listen({ port, host });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "EADDRINUSE") throw error;
    await app.close();
    const where = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
    throw new VerqError(
      "VERQ_PORT_IN_USE",
      `cannot listen on ${where}: another process is using that port. Stop it, or give another --port (0 picks a free one)`,
      { cause: error },
    );
  }
}

/** Resolves at the first SIGINT or SIGTERM, then stops listening for them. */
export function untilStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const off = onStopSignal(() => {
      off();
      resolve();
    });
  });
}

/** Calls `stop` at the first SIGINT or SIGTERM; returns the function that stops listening. */
export function onStopSignal(stop: () => void): () => void {
  const handler = () => {
    off();
    stop();
  };
  const off = () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return off;
}

/**
 * Parses a whole number written in decimal digits, from `min` (0 by default) to `max`
 * (`Number.MAX_SAFE_INTEGER` by default). Anything else is `VERQ_INVALID_ARGUMENT` (exit 2).
 */
export function parseWholeNumber(
  text: string,
  what: string,
  range: { readonly min?: number; readonly max?: number } = {},
): number {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(
      `${what} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}; got ${quoted(text)}`,
    );
  }
  return value;
}

/**
 * Parses `--payload`: JSON that the queue takes as it is (plain JSON, nested at most
 * `MAX_JSON_DEPTH` deep), checked before the store is opened. Anything else is
 * `VERQ_INVALID_PAYLOAD` (exit 2); `example` shows a good one.
 */
export function parsePayloadOption(text: string, example: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new VerqError("VERQ_INVALID_PAYLOAD", `--payload must be valid JSON, e.g. '${example}'`);
  }
  canonicalJson(value);
  return value;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a CLI duration: a whole number and a unit, `ms`, `s`, `m`, `h` or `d` (`500ms`, `30s`,
 * `10m`, `2h`, `7d`), into milliseconds, optionally within `min`..`max` ms. Anything else is
 * `VERQ_INVALID_ARGUMENT` (exit 2).
 */
export function parseDuration(
  text: string,
  what = "a duration",
  range: { readonly min?: number; readonly max?: number } = {},
): number {
  const match = /^(\d{1,12})(ms|s|m|h|d)$/.exec(text.trim());
  const unit = match?.[2];
  if (match === null || unit === undefined) {
    throw invalid(`${what} must look like 500ms, 30s, 10m, 2h or 7d; got ${quoted(text)}`);
  }
  const value = Number(match[1]) * (UNITS[unit] ?? 1);
  if (!Number.isSafeInteger(value)) throw invalid(`${what} is too long`);
  if (value < (range.min ?? 0)) throw invalid(`${what} must be at least ${range.min}ms`);
  if (range.max !== undefined && value > range.max) throw invalid(`${what} must be at most ${range.max}ms`);
  return value;
}

/** Parses `--request-timeout` (see `requestTimeoutOption`): a duration from 1s to 1h, in ms. */
export const parseRequestTimeout = (text: string): number =>
  parseDuration(text, "--request-timeout", { min: 1_000, max: 3_600_000 });

/** Parses one of a fixed set of words (`--outcome ok|retry|permanent`); anything else is `VERQ_INVALID_ARGUMENT`. */
export function parseChoice<T extends string>(text: string, what: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text)) throw invalid(`${what} must be ${choices.join(", ")}; got ${quoted(text)}`);
  return text as T;
}

/**
 * Parses an absolute `http://` or `https://` URL that `fetch` can send to: without a user name
 * or password (fetch refuses them) and not on a port the Fetch standard blocks
 * ({@link FETCH_BAD_PORTS}). Anything else is `VERQ_INVALID_ARGUMENT`.
 */
export function parseHttpUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${what} must be an http(s) URL such as http://127.0.0.1:8080/; got ${quoted(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(`${what} must start with http:// or https://; got ${quoted(text)}`);
  // Only the option is named: the URL may carry a password.
  if (url.username !== "" || url.password !== "")
    throw invalid(`${what} cannot carry a user name or password (fetch refuses them)`);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (FETCH_BAD_PORTS.has(port)) throw invalid(`${what} is on port ${port}, which fetch refuses to send to (a blocked port)`);
  return text;
}

/** `n` and the word for it, singular for one: `1 problem`, `3 problems` (`plural` when it is not the word and an s). */
export const counted = (n: number, singular: string, plural = `${singular}s`): string => `${n} ${n === 1 ? singular : plural}`;

/** A time in ms since the epoch as ISO 8601 (UTC). */
export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * One line of a stream's timeline for `show` commands: `  v<version> <ISO time> <type> k=v …`,
 * without the event's `at` (already shown) and without the fields named in `hidden` (payloads,
 * requests: never printed by a timeline).
 */
export function describeEvent(event: StoredEvent, hidden: readonly string[] = []): string {
  const details = Object.entries(event.data as Record<string, unknown>)
    .filter(([key]) => key !== "at" && !hidden.includes(key))
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(" ");
  return `  v${event.version} ${iso(event.at)} ${event.type}${details === "" ? "" : ` ${details}`}`;
}
