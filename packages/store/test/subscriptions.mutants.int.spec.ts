import { ENGINES, engineAvailable, type Engine } from "@verq/testing";
import { describe, expect, it } from "vitest";
import type { EventSubscriptionsOptions } from "../src/index.ts";
import { gapScenario, throwingHandlerScenario } from "./helpers/subscription-scenarios.ts";
import { storesOnOneDatabase } from "./helpers/fresh-store.ts";

/**
 * Deliberately broken subscriptions, each run through a scenario of `subscriptions.int.spec.ts`,
 * which must then fail, and by the expectation the mutant breaks: the subscription tests have teeth.
 */
const subscriptionMutants = {
  /** At most once: the checkpoint moves past a batch before `handle` has accepted it, so a crash or a throw loses the batch. */
  "the checkpoint is saved before handle resolves": {
    deliver: async (handle, checkpoint) => {
      await checkpoint();
      await handle();
    },
  },
  /** The gap: the reader takes every position handed out as settled, and passes one whose transaction is still in flight. */
  "a reader passes an unsettled position": { positionsSettled: () => Promise.resolve(true) },
} as const satisfies Record<string, EventSubscriptionsOptions>;

const stores = storesOnOneDatabase();
const open = (engine: Engine) => stores.open(engine);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the subscription tests catch broken subscriptions`, () => {
    it("mutant 'the checkpoint is saved before handle resolves' fails the throwing-handler scenario: the checkpoint passed the lost batch", async () => {
      const options = subscriptionMutants["the checkpoint is saved before handle resolves"];
      await expect(throwingHandlerScenario(await open(engine), options)).rejects.toThrow(/expected 3 to be 2/);
    });
  });
}

describe.skipIf(!(await engineAvailable("postgres")))(
  "[postgres] the subscription tests catch a reader that passes the gap",
  () => {
    it("mutant 'a reader passes an unsettled position' fails the gap scenario: it delivers the later event while the earlier is in flight", async () => {
      const options = subscriptionMutants["a reader passes an unsettled position"];
      await expect(gapScenario(await open("postgres"), await open("postgres"), options)).rejects.toThrow(
        /expected \[ \d+ \] to deeply equal \[\]/,
      );
    });
  },
);
