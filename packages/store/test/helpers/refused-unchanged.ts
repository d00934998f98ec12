import { isVerqError, type VerqErrorCode } from "@verq/core";
import type { VerqStore } from "@verq/store";
import { expect } from "vitest";
import { tableRows } from "./snapshot.ts";

/** The tables an operator's act writes: what one refused must leave as they were. */
export type ActTable = "jobs" | "events" | "redrives" | "ledger";

/** Every row of `tables`, each in key order, as the database returns it. */
export async function snapshotTables(store: VerqStore, tables: readonly ActTable[]): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables) snapshot[table] = await tableRows(store, table);
  return snapshot;
}

/** `call` fails with `code`, and every row of `tables` is as it was before it. */
export async function expectRefusedUnchanged(
  store: VerqStore,
  call: () => Promise<unknown>,
  code: VerqErrorCode,
  tables: readonly ActTable[],
): Promise<void> {
  const before = await snapshotTables(store, tables);
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(isVerqError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  expect(await snapshotTables(store, tables)).toEqual(before);
}
