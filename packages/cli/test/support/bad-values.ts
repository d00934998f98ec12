/*
 * The bad values of every option and argument of `verq`, by kind: each value is malformed for
 * every option of its kind, so a command must answer it with exit 2 before it opens anything.
 * An option or argument that no entry of OPTION_KINDS or ARGUMENT_KINDS names fails the corpus
 * (./bad-input.int.spec.ts): a new option comes with its bad values.
 */

/** A 1 MB argument. */
export const HUGE = "x".repeat(1 << 20);

const NUMBERS = ["", " ", "NaN", "1e309", "-5000", "1.5", "0x10", "Infinity", "99999999999999999999", "٣", HUGE];
const DURATIONS = ["", "NaN", "-1s", "1e309s", "10", "1.5s", "10 parsecs", "99999999999999d", "1ms1s", HUGE];
const IDS = ["", HUGE];
const PATHS = ["", HUGE];

/** Bad values by kind. */
export const BAD_VALUES = {
  number: NUMBERS,
  port: [...NUMBERS, "65536"],
  duration: DURATIONS,
  id: IDS,
  note: ["", "bad note", "OPS 1", HUGE],
  json: ["", "{", "{'a':1}", "undefined", "NaN", "[1,]", `{"a":${"[".repeat(10)}`],
  choice: ["", "nope", "OK", HUGE],
  queue: ["", HUGE],
  kind: ["", "1st", "bad kind!", "(None)", "bad kind", "a,", HUGE],
  queues: ["", ",", HUGE],
  target: ["", "not a url", "ftp://127.0.0.1/", "http://", "http://u:p@127.0.0.1:8080/", "http://127.0.0.1:6000/", HUGE],
  core: ["", "not a url", "ftp://127.0.0.1/", "http://", HUGE],
  host: ["", "not a host", "-x", "a..b", HUGE],
  rate: ["", "0/s", "x", "-1/s", "1/y", HUGE],
  cron: ["", "* * *", "61 * * * *", "@sometimes", HUGE],
  timezone: ["", "Mars/Base", HUGE],
  name: ["", "bad name!", HUGE],
  db: ["", "/", HUGE, "mysql://u:p@127.0.0.1/x"],
  path: PATHS,
  queueRoot: [...PATHS, "/nonexistent-verq-root"],
  profile: [...PATHS, "/nonexistent-verq/profile.json"],
  module: [...PATHS, "/nonexistent-verq/streams.mjs", "/"],
  credentials: [...PATHS, "/nonexistent-verq/dashboard.auth", "/"],
  fileName: ["", "../x.json", "a/b.json", HUGE],
} as const satisfies Record<string, readonly string[]>;

export type BadKind = keyof typeof BAD_VALUES;

/** The kind of each option, by its long flag; `<command path> <flag>` where commands differ. */
export const OPTION_KINDS: Record<string, BadKind> = {
  "--db": "db",
  "--id": "id",
  "--payload": "json",
  "--max-attempts": "number",
  "--deadline": "duration",
  "--ordering-key": "id",
  "--queue": "queue",
  "jobs work --queue": "queues",
  "--priority": "number",
  "--kind": "kind",
  "jobs enqueue --from": "path",
  "events --from": "number",
  "--chunk": "number",
  "--target": "target",
  "--owner": "id",
  "--lease": "duration",
  "--concurrency": "number",
  "--poll": "duration",
  "--timeout": "duration",
  "--log-level": "choice",
  "--token": "number",
  "--outcome": "choice",
  "--reason": "choice",
  "--state": "choice",
  "--limit": "number",
  "--note": "note",
  "--rate": "rate",
  "--older-than": "duration",
  "--done-older-than": "duration",
  "--dead-older-than": "duration",
  "--batch": "number",
  "--max-leased": "number",
  "--port": "port",
  "--host": "host",
  "--core": "core",
  "--core-timeout": "duration",
  "--request-timeout": "duration",
  "--recover-after": "duration",
  "--min-age": "duration",
  "--retention": "duration",
  "--resend-window": "duration",
  "--profile": "profile",
  "--max-bytes": "number",
  "--files": "queueRoot",
  "--out": "path",
  "--docs": "path",
  "--streams": "module",
  "--auth-file": "credentials",
  "--batch-size": "number",
  "--rounds": "number",
  "--type": "choice",
  "--name": "id",
  "--cron": "cron",
  "--timezone": "timezone",
};

/** The kind of each positional argument, by `<command path> <argument name>`. */
export const ARGUMENT_KINDS: Record<string, BadKind> = {
  "jobs finish id": "id",
  "jobs redrive id": "id",
  "jobs cancel id": "id",
  "jobs show id": "id",
  "queues limit name": "queue",
  "relay show guid": "name",
  "files init root": "path",
  "files consume root": "queueRoot",
  "files errors root": "queueRoot",
  "files lag root": "queueRoot",
  "files lag threshold": "number",
  "files replay root": "queueRoot",
  "files replay file": "fileName",
  "files schema root": "queueRoot",
  "schedules add name": "name",
  "schedules remove name": "name",
};
