import { VerqError } from "./errors.ts";
import type { ScheduleRefusal } from "./schedule.machine.ts";

/**
 * The coded error of a schedule machine's refusal, or null when the refusal is an answer
 * (`unchanged`: a define with the definition it has; `not-found`: a remove or fire of a schedule
 * that is absent or removed; `already-fired`, `not-due`, `not-a-slot`: a fire another scheduler
 * recorded first, or that is not due). A define's invalid name or queue is
 * `VERQ_INVALID_ARGUMENT`, its cron `VERQ_INVALID_CRON`, its timezone `VERQ_INVALID_TIMEZONE`; a
 * command no transition took is `VERQ_UNEXPECTED`.
 */
export function scheduleRefusalError(refusal: ScheduleRefusal): VerqError | null {
  switch (refusal) {
    case "invalid-name":
      return new VerqError("VERQ_INVALID_ARGUMENT", "invalid schedule name");
    case "invalid-cron":
      return new VerqError("VERQ_INVALID_CRON", "invalid cron expression");
    case "invalid-timezone":
      return new VerqError("VERQ_INVALID_TIMEZONE", "invalid timezone");
    case "invalid-queue":
      return new VerqError("VERQ_INVALID_ARGUMENT", "invalid queue name");
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
