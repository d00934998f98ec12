import type fc from "fast-check";
import type { LedgerWorld } from "./ledger-world.ts";

/** One step of the ledger model: a call of one `GuidLedger` method, checked against the guid machine. */
export type LedgerCommand = fc.AsyncCommand<LedgerWorld, LedgerWorld>;
