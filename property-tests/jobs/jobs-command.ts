import type fc from "fast-check";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/** A command of the jobs model: checks the real queue against the model, then updates the model. */
export type JobsCommand = fc.AsyncCommand<JobsModel, JobsReal>;
