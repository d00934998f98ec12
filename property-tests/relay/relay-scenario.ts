import fc from "fast-check";

/** The GUIDs a run may use: few, so that duplicates and races are the rule. */
export const GUIDS = ["g0", "g1", "g2"] as const;

/** The core's longest processing time, and so the min age of resolve (SPEC G5). */
export const MIN_AGE_MS = 1_000;
/** The recovery sweep's limit: any positive value is safe (see relay-world.ts). */
export const RECOVER_AFTER_MS = 500;
/** The channel's longest resend window, and the retention, longer than it (SPEC G7). */
export const RESEND_WINDOW_MS = 5_000;
export const RETENTION_MS = 6_000;
/** The attempt cap of channel resends and of reprocess (SPEC G6). */
export const MAX_ATTEMPTS = 3;

/** How the channel words a request for a GUID: the same bytes, the same content reformatted, or another payload (→ E422). */
export type SendVariant = "same" | "reformatted" | "other-payload";

/** One thing that happens during a phase; all of a phase's actions run concurrently. */
export type RelayAction =
  | { readonly kind: "send"; readonly guid: number; readonly variant: SendVariant }
  | { readonly kind: "resolve" }
  | { readonly kind: "reprocess" }
  | { readonly kind: "purge" }
  | { readonly kind: "recover" };

/** What the core does with one call, in call order (cycled). */
export type CoreFate = "answer" | "slow" | "drop-answer" | "lose-request" | "refuse" | "invalid-answer";

/** A phase: concurrent actions under the scheduler, then the clock moves on by `advanceMs`. */
export interface RelayPhase {
  readonly actions: readonly RelayAction[];
  readonly advanceMs: number;
}

/** One run: its phases, the fate of each core call, where relays die, which inquiries fail. */
export interface RelayScenario {
  readonly phases: readonly RelayPhase[];
  readonly fates: readonly CoreFate[];
  /** Per boundary crossed (`relay.afterClaim`, `relay.afterCoreCall`, `relay.afterRecord`), in order: does the relay die there? */
  readonly deaths: readonly boolean[];
  /** Per inquiry, in order: does it fail (HTTP 503)? The final settling inquiries never fail. */
  readonly inquiryFailures: readonly boolean[];
}

const rarely = fc.integer({ min: 0, max: 7 }).map((n) => n === 0);

const actionArb: fc.Arbitrary<RelayAction> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      guid: fc.nat(GUIDS.length - 1),
      variant: fc.constantFrom<SendVariant>("same", "same", "same", "same", "reformatted", "reformatted", "other-payload"),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "resolve" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "reprocess" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "purge" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "recover" as const }) },
);

/** Arbitrary scenarios: 1-5 phases of 1-5 concurrent actions, clock moves that cross every limit. */
export const scenarioArb: fc.Arbitrary<RelayScenario> = fc.record({
  phases: fc.array(
    fc.record({
      actions: fc.array(actionArb, { minLength: 1, maxLength: 5 }),
      advanceMs: fc.constantFrom(0, 1, RECOVER_AFTER_MS, MIN_AGE_MS - 1, MIN_AGE_MS, 3_000, RETENTION_MS, RETENTION_MS + 1),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  fates: fc.array(
    fc.constantFrom<CoreFate>("answer", "answer", "slow", "drop-answer", "lose-request", "refuse", "invalid-answer"),
    {
      minLength: 1,
      maxLength: 8,
    },
  ),
  deaths: fc.array(rarely, { minLength: 1, maxLength: 8 }),
  inquiryFailures: fc.array(rarely, { minLength: 1, maxLength: 4 }),
});

/** The channel's text for `guid` in `variant`. The amount is fixed per GUID, so only `other-payload` differs in content. */
export function channelText(guid: string, variant: SendVariant): string {
  const amount = 100 + GUIDS.indexOf(guid as (typeof GUIDS)[number]);
  switch (variant) {
    case "same":
      return JSON.stringify({ guid, amount });
    case "reformatted":
      return `{ "amount": ${amount},\n  "guid": "${guid}" }`;
    case "other-payload":
      return JSON.stringify({ guid, amount: amount + 1_000 });
  }
}
