import { runVerq } from "@verq/testing";

/** What `verq check` said about a soak's store. */
export interface StoreCheckResult {
  /** The exit code of `verq check`: 0 clean, 1 findings. */
  readonly exitCode: number | null;
  readonly ok: boolean;
  /** The findings, `CODE stream detail`, at most the first 20. */
  readonly findings: readonly string[];
  readonly findingCount: number;
  readonly streams: number;
  readonly events: number;
}

/**
 * Runs `verq check --db <db> --json` as a child process, the way an operator would after the
 * soak: every stream's versions, tokens and finishes, every projection row against its events.
 * Every soak ends with it; a soak passes only when it exits 0.
 */
export async function runStoreCheck(db: string): Promise<StoreCheckResult> {
  const run = await runVerq(["check", "--db", db, "--json"]);
  let parsed: {
    ok?: boolean;
    findings?: { code: string; stream: string; detail: string }[];
    checked?: { streams: number; events: number };
  } = {};
  try {
    parsed = JSON.parse(run.stdout) as typeof parsed;
  } catch {
    // Not JSON: an error the findings below make visible.
  }
  const findings = (parsed.findings ?? []).map((f) => `${f.code} ${f.stream} ${f.detail}`);
  return {
    exitCode: run.status,
    ok: run.status === 0 && parsed.ok === true,
    findings:
      parsed.ok === undefined
        ? [`verq check printed no report: ${run.stderr.trim() || run.stdout.trim()}`]
        : findings.slice(0, 20),
    findingCount: findings.length,
    streams: parsed.checked?.streams ?? 0,
    events: parsed.checked?.events ?? 0,
  };
}
