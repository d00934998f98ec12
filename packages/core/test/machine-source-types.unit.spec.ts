import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { writeMachineModules } from "./machine-source-fixtures.ts";

// Its own file: a whole TypeScript program takes seconds, and the mutation run leaves it out
// (mutation/vitest.config.ts), its other checks of machineSource being in machine-source.unit.spec.ts.
const { files, remove } = writeMachineModules();
afterAll(remove);

describe("machineSource", () => {
  it("type-checks under strict TypeScript with xstate's own types", () => {
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
