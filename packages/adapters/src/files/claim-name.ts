import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/** Who holds a claim: a process on a host. */
export interface ClaimOwner {
  readonly pid: number;
  readonly host: string;
}

/** The owner as written in names and events: `pid@host`. */
export const ownerText = (owner: ClaimOwner): string => `${owner.pid}@${owner.host}`;

/** This process, with the host name cut to letters, digits and `-` (at most 32). */
export function currentOwner(): ClaimOwner {
  return {
    pid: process.pid,
    host:
      hostname()
        .replace(/[^A-Za-z0-9-]/g, "-")
        .slice(0, 32) || "host",
  };
}

/**
 * A new claim id: the time in base 36 and 32 random bits, in lower-case letters and digits.
 * Unique per claim; it names the file's stream in the event log and fences late writers.
 */
export function newClaimId(nowMs: number): string {
  return `${nowMs.toString(36)}${randomBytes(4).toString("hex")}`;
}

/**
 * The name of a claimed file in `processing/`: `<claimId>~<pid>@<host>~<name>`. It tells
 * recovery which claim the file belongs to and whether its owner may still be alive, and it
 * is unique per claim, so two claims can never overwrite each other in `processing/`.
 */
export function processingName(claimId: string, owner: ClaimOwner, file: string): string {
  return `${claimId}~${ownerText(owner)}~${file}`;
}

/** A claimed file's name taken apart. */
export interface ParsedProcessingName {
  readonly claimId: string;
  readonly owner: ClaimOwner;
  readonly file: string;
}

const PROCESSING_NAME = /^([0-9a-z]{6,32})~(\d{1,10})@([A-Za-z0-9-]{1,32})~(.+)$/s;

/** Reads a name written by {@link processingName}; null for any other name. */
export function parseProcessingName(name: string): ParsedProcessingName | null {
  const m = PROCESSING_NAME.exec(name);
  if (m === null || m[1] === undefined || m[2] === undefined || m[3] === undefined || m[4] === undefined) return null;
  return { claimId: m[1], owner: { pid: Number(m[2]), host: m[3] }, file: m[4] };
}

/**
 * Whether the owner of a claim may still be working on it. Only a process on this host can be
 * checked; one on another host is assumed alive. A process that exists but is not ours
 * (`EPERM`) is alive too.
 */
export function ownerMayBeAlive(owner: ClaimOwner, self: ClaimOwner): boolean {
  if (owner.host !== self.host) return true;
  if (owner.pid === self.pid) return false; // this process: only claims in flight are alive (checked by the caller)
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
