import { ENGINES } from "@verq/testing";
import { storeProperty } from "../checked-property.ts";
import { storeFactory } from "../store-factory.ts";
import { runJobsModel } from "./run-jobs-model.ts";

/** The jobs model (SPEC J1-J6) on every engine: see `runJobsModel`. */
export const jobsProperty = storeProperty("jobs-model", "jobs", ENGINES, (engine, name, search) =>
  runJobsModel({ name, stores: storeFactory(engine), ...search }),
);
