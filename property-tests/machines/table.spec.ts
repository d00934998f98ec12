import { describe, expect, it } from "vitest";
import { describeProperty } from "../property-suite.ts";
import { tableMutants } from "./mutants.ts";
import { tableProperty } from "./table.property.ts";
import { runTable, TABLE_KINDS } from "./table-machines.ts";

/**
 * The deciders step through a transition table compiled from each machine; this property holds
 * that table to XState's own interpreter over the same machine, command by command, from each
 * stream's first event on.
 */
for (const kind of TABLE_KINDS) {
  await describeProperty(tableProperty(kind), {
    describe: `the ${kind} machine's compiled transition table decides as XState does`,
    it: `the ${kind} machine's table equals XState over random command sequences`,
  });
}

describe("the table properties catch broken tables", () => {
  const mutants = TABLE_KINDS.flatMap((kind) =>
    Object.entries(tableMutants[kind]).map(([name, decider]) => [kind, name, decider] as const),
  );
  it.each(mutants)("the %s property catches the mutant %s", async (kind, name, decider) => {
    await expect(runTable(kind, `table-mutant ${name}`, {}, decider)).rejects.toThrow(/\[table\]/);
  });
});
