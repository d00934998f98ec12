import { ENGINES } from "@verq/testing";
import { storeProperty } from "../checked-property.ts";
import { storeFactory } from "../store-factory.ts";
import { runLedgerModel } from "./run-ledger-model.ts";

/** The GUID ledger model (SPEC G3-G7) on every engine: see `runLedgerModel`. */
export const ledgerProperty = storeProperty("ledger-model", "ledger", ENGINES, (engine, name, search) =>
  runLedgerModel({ name, stores: storeFactory(engine), ...search }),
);
