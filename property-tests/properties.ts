import type { CheckedProperty } from "./checked-property.ts";
import { filesProperty } from "./files/files.property.ts";
import { jobsProperty } from "./jobs/jobs.property.ts";
import { ledgerProperty } from "./ledger/ledger.property.ts";
import { tableProperties } from "./machines/table.property.ts";
import { relayProperty } from "./relay/relay.property.ts";
import { schedulesProperty } from "./schedules/schedules.property.ts";

/** Every property of the real code, in the order `pnpm fuzz` runs them. */
export const PROPERTIES: readonly CheckedProperty[] = [
  jobsProperty,
  ledgerProperty,
  filesProperty,
  relayProperty,
  schedulesProperty,
  ...tableProperties,
];
