import type fc from "fast-check";
import type { SchedulesModel, SchedulesReal } from "./schedules-world.ts";

/** A command of the schedules model: acts on the real schedulers and the model, then checks them against each other. */
export type SchedulesCommand = fc.AsyncCommand<SchedulesModel, SchedulesReal>;
