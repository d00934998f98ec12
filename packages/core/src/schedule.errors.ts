import { VerqError } from "./errors.ts";
import { scheduleDefinitionError } from "./schedule.cron.ts";
import type { ScheduleRefusal } from "./schedule.machine.ts";

/**
 * The coded error of a schedule machine's refusal, or null when the refusal is an answer
 * (`unchanged`: a define with the definition it has; `not-found`: a remove or fire of a schedule
 * that is absent or removed; `already-fired`, `not-due`, `not-a-slot`: a fire another scheduler
 * recorded first, or that is not due). A define's invalid part is {@link scheduleDefinitionError},
 * the error `checkScheduleDefinition` throws for it; a command no transition took is `VERQ_UNEXPECTED`.
 */
export function scheduleRefusalError(refusal: ScheduleRefusal): VerqError | null {
  switch (refusal) {
    case "invalid-name":
    case "invalid-cron":
    case "invalid-timezone":
    case "invalid-queue":
      return scheduleDefinitionError(refusal);
    case "unhandled":
      return new VerqError("VERQ_UNEXPECTED", `schedule refused: ${refusal}`);
    case "unchanged":
    case "not-found":
    case "already-fired":
    case "not-due":
    case "not-a-slot":
      return null;
  }
}
