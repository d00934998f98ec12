import { JOB_STREAM } from "@verq/core";
import { readAllEvents, type StoredEvent, type VerqStore } from "@verq/store";
import { expect } from "vitest";

/** A claim as a worker process recorded it. */
export interface ClaimRecord {
  readonly id: string;
  readonly token: number;
  readonly owner: string;
}

/** A finish as a worker process recorded it. */
export interface FinishRecord {
  readonly id: string;
  readonly token: number;
  readonly accepted: boolean;
}

/**
 * Expects that no (job, token) pair was handed out twice across the processes, and that each
 * job's tokens are exactly 1..max (each claim added exactly 1). Returns the tokens per job.
 */
export function expectFencedTokens(claims: readonly ClaimRecord[]): Map<string, number[]> {
  const pairs = claims.map((c) => `${c.id}#${c.token}`);
  expect(new Set(pairs).size, "no (job, token) handed out twice").toBe(pairs.length);
  const tokensByJob = new Map<string, number[]>();
  for (const c of claims) tokensByJob.set(c.id, [...(tokensByJob.get(c.id) ?? []), c.token]);
  for (const [id, tokens] of tokensByJob) {
    const sorted = [...tokens].sort((a, b) => a - b);
    expect(sorted, id).toEqual(sorted.map((_, i) => i + 1));
  }
  return tokensByJob;
}

/**
 * Expects the handover of claim-worker.ts in a ring of `owners`: each `handover-<owner>` went from
 * its holder (token 1) to the owner before it in the ring (token 2), whose finish was accepted,
 * while the holder's finish with the old token was refused.
 */
export function expectHandovers(
  claims: readonly ClaimRecord[],
  finishes: readonly FinishRecord[],
  owners: readonly string[],
): void {
  owners.forEach((owner, i) => {
    const taker = owners[(i + owners.length - 1) % owners.length]!;
    const id = `handover-${owner}`;
    expect(
      claims
        .filter((c) => c.id === id)
        .map((c) => `${c.token}@${c.owner}`)
        .sort(),
      id,
    ).toEqual([`1@${owner}`, `2@${taker}`]);
    expect(
      finishes
        .filter((f) => f.id === id)
        .map((f) => `${f.token}:${f.accepted}`)
        .sort(),
      id,
    ).toEqual(["1:false", "2:true"]);
  });
}

/**
 * Expects every claim the log records to have been handed to exactly one process, and vice
 * versa: the same (job, token, owner) triples. Returns the job events of the log, in order.
 */
export async function expectLoggedClaims(store: VerqStore, claims: readonly ClaimRecord[]): Promise<StoredEvent[]> {
  const events = await readAllEvents(store.db, JOB_STREAM);
  const logged = events
    .filter((e) => e.type === "job.claimed")
    .map((e) => {
      const data = e.data as { token: number; owner: string };
      return `${e.streamId}#${data.token}@${data.owner}`;
    });
  expect(logged.sort()).toEqual(claims.map((c) => `${c.id}#${c.token}@${c.owner}`).sort());
  return events;
}
