/**
 * Kill soak for the GUID relay (issue: process-level proof, part 6b). A channel in this process
 * sends N GUIDs to a `verq relay serve` child process and keeps resending every GUID that has
 * no final answer yet (E903, E901, E902 and connection errors all mean "resend later"). The
 * relay is killed again and again: in rotation at each relay failpoint (`relay.afterClaim`,
 * `relay.afterCoreCall`, `relay.afterRecord`, which fire on their first hit) and by a SIGKILL
 * at a random moment, once a random number of GUIDs got their answer (so the kills spread over
 * the whole run whatever the machine's speed), with the other requests at any step. After the kill budget a clean relay starts, its recovery sweep turns
 * RECEIVED → FAILED and SENT → UNKNOWN, and `verq relay resolve` and `verq relay reprocess`
 * run until every GUID is settled while the channel keeps resending. Afterwards:
 * - the test core processed every GUID at most once (SPEC G1, G9), and exactly once;
 * - every GUID is DONE in the ledger, and the channel's final answer is the core's answer;
 * - the core's balance is the opening balance minus every amount, once;
 * - `verq check` finds nothing wrong with the ledger's store (versions, projections, purges).
 *
 * The ledger's store is `--db`, as the CLI's `--db` takes it: a SQLite file or a PostgreSQL URL
 * (the soak's own temporary SQLite file by default). A PostgreSQL store must be empty: the
 * audit reads every ledger entry in it.
 *
 * Run: npx tsx stress/relay-kill-soak.ts [--guids 2000] [--kills 30] [--concurrency 16] [--answers-per-kill auto]
 *      [--recover-after-ms 5000] [--min-age-ms 2000] [--db <path or postgres://…>]
 *      (or: pnpm --filter @verq/stress run relay --guids 2000)
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { GUID_CODES, GUID_STATES, type LedgerEntry } from "@verq/core";
import type { ReprocessReport, ResolveReport } from "@verq/adapters/relay";
import { GuidLedger, openStore } from "@verq/store";
import { runVerq, startRelayProcess, tempDir, TestCore, type RelayProcess, type TestBank } from "@verq/testing";
import { runStoreCheck, type StoreCheckResult } from "./store-check.ts";

/** The relay failpoints, in the order the soak visits them (docs/failpoints.md). */
export const RELAY_FAILPOINTS = ["relay.afterClaim", "relay.afterCoreCall", "relay.afterRecord"] as const;

type KillMode = (typeof RELAY_FAILPOINTS)[number] | "sigkill";
const ROTATION: readonly KillMode[] = [...RELAY_FAILPOINTS, "sigkill"];

export interface RelayKillSoakOptions {
  readonly guids: number;
  /** The ledger's store, as `--db` takes it (a SQLite path or a PostgreSQL URL); a fresh temporary SQLite file by default. */
  readonly db?: string;
  /** Relay deaths before the clean relay starts. */
  readonly kills: number;
  /** Channel requests in flight at once. */
  readonly concurrency: number;
  /**
   * How many more GUIDs get their final answer, ±50 %, before a relay without a failpoint is
   * SIGKILLed: by default the GUIDs shared evenly among those relays and the clean one.
   */
  readonly answersPerKill?: number;
  /**
   * The longest a relay serves before its SIGKILL, whether it got its answers or its failpoint
   * was hit (a failpoint relay killed this way counts as missed): 10 s by default.
   */
  readonly maxServeMs?: number;
  /** `--core-timeout` of the relay. */
  readonly coreTimeoutMs?: number;
  /**
   * `--recover-after` of the relay: until a dead relay's in-flight entries are this old, a
   * resend gets E903; then the sweep turns them FAILED or UNKNOWN.
   */
  readonly recoverAfterMs?: number;
  /** `--min-age` of `verq relay resolve`: longer than the test core ever takes. */
  readonly minAgeMs?: number;
  /** `--max-attempts` of the relay and of reprocess. */
  readonly maxAttempts?: number;
  /** Give up settling after this long; the audit then reports what is left. */
  readonly settleTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface RelayKillSoakReport {
  /** The engine of the ledger's store. */
  readonly engine: "sqlite" | "postgres";
  readonly guids: number;
  readonly kills: number;
  readonly killsBy: Readonly<Record<KillMode, number>>;
  /** Failpoint relays that were not hit in time and were SIGKILLed instead (counted in `sigkill`). */
  readonly failpointsMissed: number;
  /** Relays that ended other than by their failpoint or our SIGKILL. */
  readonly unexpectedExits: number;
  readonly sends: number;
  readonly resends: number;
  readonly e903Answers: number;
  readonly e901Answers: number;
  readonly e902Answers: number;
  readonly connectionErrors: number;
  /** Answers that are neither a final answer nor E901/E902/E903 (e.g. HTTP 500). */
  readonly otherAnswers: number;
  /** Lines the relays wrote to stderr (a failed sweep, an unexpected error), and the first few. */
  readonly relayErrorLines: number;
  readonly relayErrorSample: readonly string[];
  readonly recoveredReceivedToFailed: number;
  readonly recoveredSentToUnknown: number;
  /** SENT → UNKNOWN because a live relay got no answer within `--core-timeout`. */
  readonly unknownWithoutAnswer: number;
  readonly resolvedDone: number;
  readonly resolvedFailed: number;
  readonly reprocessed: number;
  /** FAILED entries sent again by a channel resend rather than by reprocess. */
  readonly resentByChannel: number;
  readonly resolveRuns: number;
  readonly reprocessRuns: number;
  /** Inquiries of resolve that failed (the entry stays UNKNOWN for the next run). */
  readonly inquiryErrors: number;
  readonly coreCalls: number;
  readonly coreCallsPerGuidMax: number;
  readonly audit: RelaySoakAudit;
  /** `verq check` of the ledger's store once the last relay has stopped. */
  readonly storeCheck: StoreCheckResult;
  /** From starting the clean relay until every GUID was settled. */
  readonly settleSeconds: number;
  readonly seconds: number;
}

/** What the audit looks at once the soak has settled. */
export interface RelaySoakFacts {
  /** Every GUID the channel sent, with its amount. */
  readonly amounts: ReadonlyMap<string, number>;
  readonly bank: Pick<TestBank, "calls" | "inquire" | "callsByGuid" | "balance">;
  readonly openingBalance: number;
  /** The ledger entry of each GUID; a GUID without one is absent. */
  readonly entries: ReadonlyMap<string, Pick<LedgerEntry, "state" | "response">>;
  /** The final answer the channel got for each GUID; a GUID without one is absent. */
  readonly answers: ReadonlyMap<string, string>;
}

/** The verdict of {@link auditRelaySoak}; `ok` only when every list is empty and the balance matches. */
export interface RelaySoakAudit {
  /** GUIDs the core processed more than once: what the relay exists to prevent. */
  readonly processedTwice: readonly string[];
  /** GUIDs whose entry is missing or not DONE. */
  readonly notDone: readonly string[];
  /** DONE GUIDs the core never processed: an answer from nowhere. */
  readonly doneWithoutCall: readonly string[];
  /** GUIDs whose stored answer or the channel's final answer is not the core's, byte for byte (or missing). */
  readonly answerMismatches: readonly string[];
  /** Core calls for GUIDs the channel never sent. */
  readonly strayCalls: number;
  readonly expectedBalance: number;
  readonly balanceMatches: boolean;
  readonly ok: boolean;
}

/**
 * Judges a settled soak (SPEC G1, G3, G9): each GUID processed by the core exactly once, DONE in
 * the ledger, its stored answer and the channel's final answer both the core's answer byte for
 * byte, and the balance debited by each amount once. Pure: reads only `facts`.
 */
export function auditRelaySoak(facts: RelaySoakFacts): RelaySoakAudit {
  const processedTwice: string[] = [];
  const notDone: string[] = [];
  const doneWithoutCall: string[] = [];
  const answerMismatches: string[] = [];
  let expectedBalance = facts.openingBalance;
  for (const [guid, amount] of facts.amounts) {
    expectedBalance -= amount;
    const calls = facts.bank.calls(guid);
    if (calls > 1) processedTwice.push(guid);
    const entry = facts.entries.get(guid);
    if (entry?.state !== "DONE") {
      notDone.push(guid);
      continue;
    }
    if (calls === 0) doneWithoutCall.push(guid);
    const coreAnswer = facts.bank.inquire(guid);
    if (coreAnswer === null || entry.response !== coreAnswer || facts.answers.get(guid) !== coreAnswer)
      answerMismatches.push(guid);
  }
  let strayCalls = 0;
  for (const [guid, calls] of facts.bank.callsByGuid()) if (!facts.amounts.has(guid)) strayCalls += calls;
  const balanceMatches = facts.bank.balance === expectedBalance;
  const ok =
    processedTwice.length + notDone.length + doneWithoutCall.length + answerMismatches.length + strayCalls === 0 &&
    balanceMatches;
  return { processedTwice, notDone, doneWithoutCall, answerMismatches, strayCalls, expectedBalance, balanceMatches, ok };
}

/** The soak passes when the audit holds, `verq check` finds nothing and no relay died for a reason the soak did not cause. */
export function relaySoakPassed(report: RelayKillSoakReport): boolean {
  return report.audit.ok && report.unexpectedExits === 0 && report.coreCallsPerGuidMax === 1 && report.storeCheck.ok;
}

/**
 * A channel that resends on timeout (SPEC G1): each GUID's exact request text again and again
 * until an answer with the ledger state DONE comes back. A resend that is due goes before the
 * GUIDs not sent yet, so a dead relay's GUIDs come back while their entries are still in
 * flight (E903). It sends to whichever relay `target` names; `null` while none listens.
 */
class ResendingChannel {
  target: string | null = null;
  readonly answers = new Map<string, string>();
  readonly figures = { sends: 0, resends: 0, e903: 0, e901: 0, e902: 0, connectionErrors: 0, other: 0 };
  readonly #requests: ReadonlyMap<string, string>;
  readonly #fresh: string[];
  readonly #due: string[] = [];
  /** Sends so far per GUID: after each answer that is not final the wait doubles, up to a second. */
  readonly #misses = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(requests: ReadonlyMap<string, string>) {
    this.#requests = requests;
    this.#fresh = [...requests.keys()];
  }

  /** Runs `concurrency` senders until every GUID has its final answer or {@link stop} is called. */
  async run(concurrency: number, timeoutMs: number): Promise<void> {
    await Promise.all(Array.from({ length: concurrency }, () => this.#sender(timeoutMs)));
  }

  get settled(): boolean {
    return this.answers.size === this.#requests.size;
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  async #sender(timeoutMs: number): Promise<void> {
    while (!this.#stopped && !this.settled) {
      const url = this.target;
      const guid = url === null ? undefined : (this.#due.shift() ?? this.#fresh.shift());
      if (url === null || guid === undefined) {
        await sleep(10);
        continue;
      }
      const request = this.#requests.get(guid) ?? "";
      this.figures.sends++;
      if (this.#misses.has(guid)) this.figures.resends++;
      const misses = (this.#misses.get(guid) ?? 0) + 1;
      this.#misses.set(guid, misses);
      const answer = await post(url, request, timeoutMs);
      if (answer.kind === "done") {
        this.answers.set(guid, answer.text);
        continue;
      }
      if (answer.kind === "error") {
        this.figures.connectionErrors++;
        this.#later(guid, 50);
        // The relay is down or restarting: this sender backs off too instead of failing every GUID.
        await sleep(50);
        continue;
      }
      if (answer.code === GUID_CODES.inProgress) this.figures.e903++;
      else if (answer.code === GUID_CODES.unknown) this.figures.e901++;
      else if (answer.code === GUID_CODES.notSent) this.figures.e902++;
      else this.figures.other++;
      // In flight, UNKNOWN or FAILED: the entry waits for the sweep, resolve or reprocess.
      this.#later(guid, Math.min(1_000, 25 * 2 ** misses));
    }
  }

  #later(guid: string, ms: number): void {
    ms *= 0.5 + Math.random();
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#due.push(guid);
    }, ms);
    this.#timers.add(timer);
  }
}

type PostAnswer =
  | { readonly kind: "done"; readonly text: string }
  | { readonly kind: "not-done"; readonly code: string | undefined }
  | { readonly kind: "error" };

async function post(url: string, body: string, timeoutMs: number): Promise<PostAnswer> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status === 200 && response.headers.get("verq-ledger-state") === "DONE") return { kind: "done", text };
    let code: string | undefined;
    try {
      const parsed = JSON.parse(text) as { code?: unknown };
      code = typeof parsed.code === "string" ? parsed.code : undefined;
    } catch {
      code = undefined;
    }
    return { kind: "not-done", code: response.status === 200 ? code : `HTTP ${response.status}` };
  } catch {
    return { kind: "error" };
  }
}

/** Waits until the relay ends by itself (true), or until `enough()` holds or `ms` passed (false). */
async function endsBefore(relay: RelayProcess, enough: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (relay.process.exitCode !== null || relay.process.signalCode !== null) return true;
    if (enough() || Date.now() > until) return false;
    await sleep(5);
  }
}

function watchStderr(relay: RelayProcess, lines: string[]): void {
  relay.process.stderr?.on("data", (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .split("\n")
        .filter((line) => line.trim() !== ""),
    ),
  );
}

/** Runs a `verq relay …` command with `--json` and returns its JSON; exit 1 (work left) is expected. */
async function runRelayCommand<T>(args: readonly string[]): Promise<T> {
  const run = await runVerq(["relay", ...args, "--json"]);
  if (run.status !== 0 && run.status !== 1) throw new Error(`verq relay ${args[0] ?? ""} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/**
 * Runs the soak described at the top of this file on `options.db` (a fresh SQLite file in a temp folder by default), with
 * an in-process {@link TestCore} on 127.0.0.1, and returns its figures and the audit. It does not
 * throw on a failed audit: the report says what went wrong ({@link relaySoakPassed}).
 */
export async function runRelayKillSoak(options: RelayKillSoakOptions): Promise<RelayKillSoakReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const coreTimeoutMs = options.coreTimeoutMs ?? 1_000;
  const recoverAfterMs = options.recoverAfterMs ?? 5_000;
  const minAgeMs = options.minAgeMs ?? 2_000;
  const maxAttempts = options.maxAttempts ?? 50;
  const maxServeMs = options.maxServeMs ?? 10_000;
  const sigkillRounds = Array.from({ length: options.kills }, (_, round) => ROTATION[round % ROTATION.length]).filter(
    (m) => m === "sigkill",
  ).length;
  const answersPerKill = options.answersPerKill ?? Math.ceil(options.guids / (sigkillRounds + 1));
  const relayArgs = [
    "--core-timeout",
    `${coreTimeoutMs}ms`,
    "--recover-after",
    `${recoverAfterMs}ms`,
    "--max-attempts",
    String(maxAttempts),
    // The relay's stderr is read for errors: its info lines (one per transfer) are not.
    "--log-level",
    "warn",
  ];
  const dir = tempDir("verq-relay-soak-");
  const db = options.db ?? `${dir.path}/ledger.sqlite`;
  const openingBalance = 1_000_000_000;
  const core = await TestCore.start({ openingBalance });
  const amounts = new Map<string, number>();
  const requests = new Map<string, string>();
  for (let i = 0; i < options.guids; i++) {
    const guid = `soak-${String(i).padStart(6, "0")}`;
    amounts.set(guid, 1 + (i % 97));
    requests.set(guid, JSON.stringify({ guid, amount: 1 + (i % 97), to: `acct-${i % 13}` }));
  }
  const store = await openStore(db);
  const channel = new ResendingChannel(requests);
  const channelDone = channel.run(options.concurrency, 5_000);
  let relay: RelayProcess | undefined;
  try {
    const ledger = new GuidLedger(store);
    const killsBy: Record<KillMode, number> = {
      "relay.afterClaim": 0,
      "relay.afterCoreCall": 0,
      "relay.afterRecord": 0,
      sigkill: 0,
    };
    let kills = 0;
    let failpointsMissed = 0;
    let unexpectedExits = 0;
    const relayErrors: string[] = [];
    for (let round = 0; kills < options.kills && !channel.settled; round++) {
      const mode = ROTATION[round % ROTATION.length] ?? "sigkill";
      // `kill` and `exit(73)` take turns at each failpoint: a signal and a plain exit, both abrupt.
      const action = Math.floor(round / ROTATION.length) % 2 === 0 ? "kill" : "exit(73)";
      relay = await startRelayProcess(db, core.url, {
        args: relayArgs,
        failpoints: mode === "sigkill" ? "" : `${mode}=${action}`,
      });
      watchStderr(relay, relayErrors);
      channel.target = relay.url;
      const answersBefore = channel.answers.size;
      const quota = Math.max(1, Math.round(answersPerKill * (0.5 + Math.random())));
      const enough = () => mode === "sigkill" && channel.answers.size >= answersBefore + quota;
      const byItself = await endsBefore(relay, enough, maxServeMs);
      if (!byItself) relay.process.kill("SIGKILL");
      const exit = await relay.exited;
      channel.target = null;
      relay = undefined;
      kills++;
      if (!byItself) {
        killsBy.sigkill++;
        if (mode !== "sigkill") failpointsMissed++;
      } else if (mode !== "sigkill" && (exit.code === 73 || exit.signal === "SIGKILL")) {
        killsBy[mode]++;
      } else {
        unexpectedExits++;
      }
      log(
        `kill ${kills}/${options.kills}: ${byItself ? mode : "sigkill"} (${exit.signal ?? `exit ${exit.code}`}); final answers ${channel.answers.size}/${options.guids}`,
      );
    }

    // Settle: a clean relay, whose sweep (at start, then every --recover-after / 2) turns what
    // the dead relays left in flight FAILED or UNKNOWN; then resolve whenever an UNKNOWN entry
    // is old enough to ask about, and reprocess what is FAILED, while the channel keeps resending.
    const settleStarted = Date.now();
    const settleUntil = settleStarted + (options.settleTimeoutMs ?? 120_000);
    relay = await startRelayProcess(db, core.url, { args: relayArgs });
    watchStderr(relay, relayErrors);
    channel.target = relay.url;
    let resolveRuns = 0;
    let reprocessRuns = 0;
    let inquiryErrors = 0;
    const leftInFlight = async () =>
      (await ledger.list(["RECEIVED", "SENT"], options.guids)).some((e) => e.updatedAt < settleStarted);
    while ((await leftInFlight()) && Date.now() < settleUntil) await sleep(100);
    for (;;) {
      const stats = await ledger.stats();
      if ((stats.byState.DONE === options.guids && channel.settled) || Date.now() > settleUntil) break;
      const unknown = await ledger.list(["UNKNOWN"], options.guids);
      if (unknown.some((entry) => ledger.mayInquire(entry, minAgeMs))) {
        const resolved = await runRelayCommand<ResolveReport>([
          "resolve",
          "--db",
          db,
          "--core",
          core.url,
          "--min-age",
          `${minAgeMs}ms`,
          "--limit",
          String(options.guids),
        ]);
        resolveRuns++;
        inquiryErrors += resolved.errors.length;
        log(
          `resolve: DONE ${resolved.done.length}, FAILED ${resolved.failed.length}, young ${resolved.young.length}, errors ${resolved.errors.length}`,
        );
      }
      if ((await ledger.stats()).byState.FAILED > 0 || (resolveRuns > 0 && reprocessRuns === 0)) {
        const reprocessed = await runRelayCommand<ReprocessReport>([
          "reprocess",
          "--db",
          db,
          "--core",
          core.url,
          "--max-attempts",
          String(maxAttempts),
          "--limit",
          String(options.guids),
        ]);
        reprocessRuns++;
        log(`reprocess: DONE ${reprocessed.done}, not DONE ${reprocessed.notDone}, at the cap ${reprocessed.atCap}`);
      }
      await sleep(100);
    }
    channel.stop();
    await channelDone;
    const settleSeconds = (Date.now() - settleStarted) / 1000;
    await relay.stop();
    if ((await relay.exited).code !== 0) unexpectedExits++;
    relay = undefined;

    const entries = new Map<string, LedgerEntry>();
    for (const entry of await ledger.list(GUID_STATES, 2 * options.guids)) entries.set(entry.guid, entry);
    const audit = auditRelaySoak({ amounts, bank: core.bank, openingBalance, entries, answers: channel.answers });
    const events = await eventFigures(store);
    const storeCheck = await runStoreCheck(db);
    log(`verq check: ${storeCheck.ok ? "ok" : storeCheck.findings.join("; ")}`);
    return {
      engine: store.dialect.name,
      guids: options.guids,
      kills,
      killsBy,
      failpointsMissed,
      unexpectedExits,
      sends: channel.figures.sends,
      resends: channel.figures.resends,
      e903Answers: channel.figures.e903,
      e901Answers: channel.figures.e901,
      e902Answers: channel.figures.e902,
      connectionErrors: channel.figures.connectionErrors,
      otherAnswers: channel.figures.other,
      relayErrorLines: relayErrors.length,
      relayErrorSample: relayErrors.slice(0, 5),
      ...events,
      resolveRuns,
      reprocessRuns,
      inquiryErrors,
      coreCalls: core.totalCalls,
      coreCallsPerGuidMax: [...core.bank.callsByGuid().values()].reduce((max, n) => Math.max(max, n), 0),
      audit,
      storeCheck,
      settleSeconds,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    channel.stop();
    if (relay !== undefined) {
      relay.process.kill("SIGKILL");
      await relay.exited;
    }
    await channelDone;
    await store.close();
    await core.close();
    dir.remove();
  }
}

/** Counts what the sweep, resolve and reprocess did, from the GUID events themselves. */
async function eventFigures(store: Awaited<ReturnType<typeof openStore>>) {
  const rows = await store.db.selectFrom("events").select(["type", "data"]).where("stream_type", "=", "guid").execute();
  const figures = {
    recoveredReceivedToFailed: 0,
    recoveredSentToUnknown: 0,
    unknownWithoutAnswer: 0,
    resolvedDone: 0,
    resolvedFailed: 0,
    reprocessed: 0,
    resentByChannel: 0,
  };
  for (const row of rows) {
    const data = JSON.parse(row.data) as { reason?: string; via?: string; by?: string };
    if (row.type === "guid.failed" && data.reason === "recovered") figures.recoveredReceivedToFailed++;
    else if (row.type === "guid.unknown" && data.reason === "recovered") figures.recoveredSentToUnknown++;
    else if (row.type === "guid.unknown") figures.unknownWithoutAnswer++;
    else if (row.type === "guid.done" && data.via === "inquiry") figures.resolvedDone++;
    else if (row.type === "guid.failed" && data.reason === "not-found") figures.resolvedFailed++;
    else if (row.type === "guid.sent" && data.by === "reprocess") figures.reprocessed++;
    else if (row.type === "guid.sent" && data.by === "channel") figures.resentByChannel++;
  }
  return figures;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      guids: { type: "string", default: "2000" },
      kills: { type: "string", default: "30" },
      concurrency: { type: "string", default: "16" },
      "answers-per-kill": { type: "string", default: "auto" },
      "max-serve-ms": { type: "string", default: "10000" },
      "core-timeout-ms": { type: "string", default: "1000" },
      "recover-after-ms": { type: "string", default: "5000" },
      "min-age-ms": { type: "string", default: "2000" },
      "max-attempts": { type: "string", default: "50" },
      "settle-timeout-ms": { type: "string", default: "300000" },
      db: { type: "string" },
    },
  });
  const whole = (name: keyof typeof values, min: number): number => {
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < min)
      throw new Error(`--${name} must be a whole number of at least ${min}; got ${String(values[name])}`);
    return n;
  };
  const report = await runRelayKillSoak({
    ...(values.db === undefined ? {} : { db: values.db }),
    guids: whole("guids", 1),
    kills: whole("kills", 0),
    concurrency: whole("concurrency", 1),
    ...(values["answers-per-kill"] === "auto" ? {} : { answersPerKill: whole("answers-per-kill", 1) }),
    maxServeMs: whole("max-serve-ms", 1),
    coreTimeoutMs: whole("core-timeout-ms", 1),
    recoverAfterMs: whole("recover-after-ms", 1),
    minAgeMs: whole("min-age-ms", 0),
    maxAttempts: whole("max-attempts", 1),
    settleTimeoutMs: whole("settle-timeout-ms", 1),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(report, null, 2));
  const ok = relaySoakPassed(report);
  console.log(ok ? "PASS" : "FAIL");
  process.exitCode = ok ? 0 : 1;
}
