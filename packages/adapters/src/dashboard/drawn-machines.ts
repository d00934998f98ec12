import { VERQ_MACHINE_NAMES, type VerqMachineName } from "@verq/core";

/**
 * For each machine of core's `STREAM_MACHINES`, whether the overview draws it. A diagram there
 * shows how many streams are in each state now, and the store counts streams by state for jobs,
 * GUIDs and file-queue messages only (`stats()` of their services); schedules, queue limits and
 * operator locks have no such counts, so their diagrams live in `verq viz` and docs/machines.md.
 * Keyed by every machine name, so a machine added to core must be placed here to compile.
 */
const DRAWN = {
  job: true,
  guid: true,
  message: true,
  schedule: false,
  queue: false,
  lock: false,
} as const satisfies Readonly<Record<VerqMachineName, boolean>>;

/** A machine the dashboard's overview draws with its counts. */
export type DrawnMachine = { [K in VerqMachineName]: (typeof DRAWN)[K] extends true ? K : never }[VerqMachineName];

/** The machines the overview draws, in core's `VERQ_MACHINE_NAMES` order. */
export const DRAWN_MACHINES: readonly DrawnMachine[] = VERQ_MACHINE_NAMES.filter((name): name is DrawnMachine => DRAWN[name]);
