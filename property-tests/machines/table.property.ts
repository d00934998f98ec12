import type { CheckedProperty } from "../checked-property.ts";
import { runTable, TABLE_KINDS, type TableKind } from "./table-machines.ts";

/** The property that holds the `kind` machine's compiled table equal to XState: `table-<kind>`, no store. */
export function tableProperty(kind: TableKind): CheckedProperty {
  const name = `table-${kind}`;
  return { name, suite: "machines", engines: [null], run: (_engine, search) => runTable(kind, name, search) };
}

/** The table property of every machine. */
export const tableProperties: readonly CheckedProperty[] = TABLE_KINDS.map(tableProperty);
