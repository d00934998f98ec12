import { ENGINES } from "@verq/testing";
import { storeProperty } from "../checked-property.ts";
import { storeFactory } from "../store-factory.ts";
import { runFilesModel } from "./run-files-model.ts";

/** The file ledger model (SPEC F1-F3, F8) on every engine: see `runFilesModel`. */
export const filesProperty = storeProperty("files-model", "files", ENGINES, (engine, name, search) =>
  runFilesModel({ name, stores: storeFactory(engine), ...search }),
);
