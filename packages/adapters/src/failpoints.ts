/**
 * Failpoints stop a process at an exact, named boundary so that crash tests can prove what
 * survives. They are configured by one environment variable, parsed once at module load:
 *
 *   VERQ_FAILPOINTS="job.afterSend=exit(73),relay.afterClaim=kill"
 *
 * Actions: `exit(CODE)` ends the process at once with CODE (no `finally`, no cleanup, like a
 * crash that still flushes nothing); `kill` sends SIGKILL to the process itself. With the
 * variable unset, {@link failpoint} is a lookup in an empty map: free when off.
 *
 * Named boundaries (listed in docs/failpoints.md): `job.afterSend`, `job.beforeFinish`,
 * `relay.afterClaim`, `relay.afterCoreCall`, `relay.afterRecord`, `files.afterRename`,
 * `events.midBatch`.
 */
export type FailpointAction = { readonly kind: "exit"; readonly code: number } | { readonly kind: "kill" };

const FAILPOINT_NAME = /^[a-z][A-Za-z0-9]*\.[A-Za-z0-9]+$/;

/** Parses a `VERQ_FAILPOINTS` value; throws on anything malformed so a typo never goes unnoticed. */
export function parseFailpoints(spec: string | undefined): ReadonlyMap<string, FailpointAction> {
  const points = new Map<string, FailpointAction>();
  if (spec === undefined || spec.trim() === "") return points;
  for (const part of spec.split(",")) {
    const match = /^\s*([^=\s]+)\s*=\s*(?:exit\((\d{1,3})\)|(kill))\s*$/.exec(part);
    const name = match?.[1];
    if (match === null || name === undefined || !FAILPOINT_NAME.test(name)) {
      throw new Error(`VERQ_FAILPOINTS: cannot parse ${JSON.stringify(part)}; write name=exit(CODE) or name=kill`);
    }
    points.set(name, match[3] === "kill" ? { kind: "kill" } : { kind: "exit", code: Number(match[2]) });
  }
  return points;
}

const active = parseFailpoints(process.env.VERQ_FAILPOINTS);

/** Triggers the failpoint `name` if `VERQ_FAILPOINTS` names it; otherwise returns at once. */
export function failpoint(name: string): void {
  if (active.size === 0) return;
  const action = active.get(name);
  if (action === undefined) return;
  if (action.kind === "kill") process.kill(process.pid, "SIGKILL");
  process.exit(action.kind === "exit" ? action.code : 137);
}
