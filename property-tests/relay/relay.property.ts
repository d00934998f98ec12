import { ENGINES } from "@verq/testing";
import { storeProperty } from "../checked-property.ts";
import { storeFactory } from "../store-factory.ts";
import { runRelayModel } from "./run-relay-model.ts";

/** The GUID relay (SPEC G1-G9) on every engine, each store with one connection (see `runRelayModel`). */
export const relayProperty = storeProperty("relay-model", "relay", ENGINES, (engine, name, search) =>
  runRelayModel({ name, stores: storeFactory(engine, { oneConnection: true }), ...search }),
);
