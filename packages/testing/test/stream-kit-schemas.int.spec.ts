import type { DeclaredCommand } from "@verq/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { orderStream } from "../../../examples/order-lifecycle/src/order.stream.ts";
import { ENGINES, checkStreamModel, describeStreamModelReport, engineAvailable } from "../src/index.ts";

/** A picker's name, trimmed; a blank one refused: a Standard Schema written out by hand. */
const pickSchema = {
  "~standard": {
    version: 1 as const,
    vendor: "test",
    validate(value: unknown) {
      const picker = (value as { picker?: unknown }).picker;
      if (typeof picker !== "string" || picker.trim() === "") return { issues: [{ message: "blank", path: ["picker"] }] };
      return { value: { ...(value as object), picker: picker.trim() } };
    },
  },
};

/** Order commands, with pickers the schema trims or refuses. */
const commands: fc.Arbitrary<DeclaredCommand> = fc.oneof(
  fc.record({ type: fc.constant("place"), customer: fc.constant("ann"), amountCents: fc.constant(500) }),
  fc.record({ type: fc.constant("pay"), paymentId: fc.constant("p-1"), amountCents: fc.constant(500) }),
  fc.record({ type: fc.constant("pick"), picker: fc.constantFrom("ann", "  bob ", " ") }),
  fc.record({ type: fc.constant("ship"), token: fc.integer({ min: 0, max: 2 }), carrier: fc.constant("ups") }),
);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] checkStreamModel with command schemas`, () => {
    it("decides each command's schema output, and sees the store refuse what a schema refuses with nothing written", async () => {
      const report = await checkStreamModel({
        definition: orderStream,
        commands,
        database: engine,
        schemas: { pick: pickSchema },
        numRuns: 30,
        seed: 20_251_205,
        concurrent: true,
      });
      console.log(`[model] with schemas: ${describeStreamModelReport(report)}`);
      expect(report.invalid).toBeGreaterThan(0);
      expect(report.reached.picking ?? 0).toBeGreaterThan(0);
      expect(report.accepted + report.refused + report.invalid).toBe(report.commands);
    });
  });
}
