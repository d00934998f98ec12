import { ENGINES } from "@verq/testing";
import { storeProperty } from "../checked-property.ts";
import { storeFactory } from "../store-factory.ts";
import { runSchedulesModel } from "./run-schedules-model.ts";

/** The schedules model on every engine: see `runSchedulesModel`. */
export const schedulesProperty = storeProperty("schedules-model", "schedules", ENGINES, (engine, name, search) =>
  runSchedulesModel({ name, stores: storeFactory(engine), ...search }),
);
