import { fileURLToPath } from "node:url";
import { runVerq, type VerqRun } from "@verq/testing";

/*
 * The modules of stream definitions that the tests of `--streams` hand the CLI (./fixtures), and
 * how they run `verq` so that it can import them.
 */

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** Exports the help-desk ticket of @verq/core's tests (`ticket`). */
export const TICKETS = fixture("ticket-streams.ts");

/** Exports the ticket whose `ticket.opened` is at version 2, with an upcaster from version 1. */
export const TICKETS_V2 = fixture("ticket-v2-streams.ts");

/** Exports no stream definition. */
export const NO_STREAMS = fixture("no-streams.ts");

/**
 * Runs `verq` as a child process (the test run's bundle) that can import the fixture modules:
 * TypeScript that imports @verq/core's sources, loaded through tsx as a service runs a `.ts`
 * module of its own.
 */
export const verqWithTsx = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<VerqRun> =>
  runVerq(args, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import tsx`, ...env });
