import { fileURLToPath } from "node:url";
import { VerqError } from "@verq/core";
import { describe, expect, it } from "vitest";
import { ticketStream } from "../../core/test/ticket-stream.ts";
import { loadStreams } from "../src/streams-module.ts";
import { TICKETS } from "./support/declared-streams.ts";

/*
 * loadStreams, the reading of a `--streams` module: every definition it exports, once each, and
 * a VERQ_INVALID_ARGUMENT naming `--streams` for each kind of module it cannot use.
 */

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** The error `loadStreams(path)` rejects with. */
async function refusal(path: string): Promise<VerqError> {
  const error = await loadStreams(path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VerqError);
  expect((error as VerqError).code).toBe("VERQ_INVALID_ARGUMENT");
  return error as VerqError;
}

describe("loadStreams", () => {
  it("reads nothing without a path", async () => {
    expect(await loadStreams(undefined)).toEqual([]);
  });

  it("returns each definition the module exports once, however many names it has, and ignores other values", async () => {
    const definitions = await loadStreams(TICKETS);
    expect(definitions.map((d) => d.name)).toEqual(["ticket"]);
    expect(definitions[0]?.name).toBe(ticketStream.name);
    expect(definitions[0]?.machine.id).toBe("ticket");
  });

  it("refuses two definitions of one name, and a definition named like one of verq's own stream types", async () => {
    expect((await refusal(fixture("two-tickets.ts"))).message).toBe('--streams: two definitions of stream type "ticket"');
    expect((await refusal(fixture("verq-named-streams.ts"))).message).toBe(`--streams: stream type "job" is one of verq's own`);
  });

  it("quotes the first line of the error of a module whose definition throws while it loads", async () => {
    const { message } = await refusal(fixture("throwing-streams.ts"));
    expect(message).toMatch(/^--streams: cannot load ".*throwing-streams\.ts" \(.*a stream type name is 1 to 63 of a-z/);
  });

  it("refuses an empty or overlong path, a missing file, a folder and a module without definitions", async () => {
    expect((await refusal("")).message).toContain("--streams must name a file or folder");
    expect((await refusal("x".repeat(5000))).message).toContain("--streams is too long");
    expect((await refusal(fixture("nope.mjs"))).message).toMatch(/^--streams: no module at ".*nope\.mjs"$/);
    expect((await refusal(fixture(""))).message).toMatch(/^--streams: ".*fixtures\/?" is not a file$/);
    expect((await refusal(fixture("no-streams.ts"))).message).toMatch(/exports no stream definition \(defineStream\)$/);
  });
});
