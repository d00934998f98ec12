import type { GuidRefusal } from "./guid.machine.ts";

/**
 * Whether a purge's refusal of one entry ends the scan (SPEC G7): the purge looks at entries
 * oldest change first, so the first one the machine finds `too-young` for the retention means
 * every later one is younger still, and none of them is decided. Any other refusal (not DONE)
 * keeps that entry and the scan goes on.
 */
export function endsPurgeScan(refusal: GuidRefusal): boolean {
  return refusal === "too-young";
}
