import { assign, setup } from "xstate";
import { describe, expect, it } from "vitest";
import {
  defineStream,
  describeCommandType,
  isStreamDefinition,
  isVerqError,
  type DeclaredEvent,
  type JsonObject,
} from "../src/index.ts";
import { ticketDeclaration, ticketStream } from "./ticket-stream.ts";

const T = 1_700_000_000_000;

type Lamp = { readonly state: string; readonly flips: number };

/**
 * A lamp whose machine keeps its state under the default field (`state`), with a wildcard
 * transition and a delayed one that only XState's interpreter runs.
 */
const lampMachine = setup({
  types: {
    context: {} as { state: Lamp; emitted: DeclaredEvent[]; refusal: string | null },
    events: {} as { type: "flip"; now: number } | { type: "poke"; now: number },
  },
}).createMachine({
  id: "lamp",
  initial: "off",
  context: { state: { state: "off", flips: 0 }, emitted: [], refusal: null },
  states: {
    off: {
      after: { 1000: "off" },
      on: {
        flip: {
          target: "on",
          actions: assign(({ context, event }) => ({
            state: { state: "on" as const, flips: context.state.flips + 1 },
            emitted: [{ type: "lamp.flipped", data: { at: event.now } }],
          })),
        },
        "*": { actions: assign({ refusal: "wild" }) },
      },
    },
    on: {},
  },
});

const lamp = (change: { events?: Record<string, { version: number }> } = {}) =>
  defineStream({
    name: "lamp",
    machine: lampMachine,
    initial: (): Lamp & JsonObject => ({ state: "off", flips: 0 }),
    evolve: (state: Lamp & JsonObject) => ({ state: "on", flips: state.flips + 1 }),
    unhandled: "unhandled",
    execution: "xstate",
    ...change,
  });

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the builder every stream type is declared by", () => {
  it("keeps the state under `state` when no field is named, and decides with it", () => {
    const decision = lamp().decide(lamp().initial("l"), T, { type: "flip" });
    expect(decision).toEqual({
      accepted: true,
      after: { id: "l", version: 1, state: "on", value: { state: "on", flips: 1 } },
      events: [{ type: "lamp.flipped", data: { at: T } }],
    });
  });

  it("takes as commands only the events a transition names: not the wildcard, not XState's own", () => {
    expect([...lamp().commandTypes]).toEqual(["flip"]);
  });

  it("keeps why the machine could not be compiled as the cause of VERQ_UNSUPPORTED_MACHINE", () => {
    const error = thrown(() => defineStream({ ...ticketDeclaration, machine: lampMachine, execution: "table" })) as Error;
    expect(isVerqError(error, "VERQ_UNSUPPORTED_MACHINE")).toBe(true);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toBe(`stream type "ticket": ${(error.cause as Error).message}`);
  });

  it("takes version 1 as an event's first version, with no upcaster", () => {
    expect(lamp({ events: { "lamp.flipped": { version: 1 } } }).schemaVersion("lamp.flipped")).toBe(1);
  });

  it("names a command that is not plain JSON as a command", () => {
    const error = thrown(() => ticketStream.decide(ticketStream.initial("t"), T, { type: "open", title: Number.NaN }));
    expect(isVerqError(error, "VERQ_INVALID_PAYLOAD")).toBe(true);
    expect((error as Error).message).toMatch(/^the command must be plain JSON/);
  });

  it("refuses an event whose time is missing or not a finite number", () => {
    for (const data of [undefined, { at: Number.NaN }, { at: "1" }]) {
      const machine = setup({}).createMachine({
        id: "lamp",
        initial: "off",
        context: { state: { state: "off", flips: 0 }, emitted: [], refusal: null },
        states: {
          off: {
            on: {
              flip: {
                target: "on",
                actions: assign(() => ({ state: { state: "on", flips: 1 }, emitted: [{ type: "lamp.flipped", data }] })),
              },
            },
          },
          on: {},
        },
      });
      const broken = defineStream({
        name: "lamp",
        machine,
        initial: () => ({ state: "off", flips: 0 }),
        evolve: (state) => state,
        unhandled: "unhandled",
      });
      expect(() => broken.decide(broken.initial("l"), T, { type: "flip" }), JSON.stringify(data)).toThrow(
        'stream type "lamp": event lamp.flipped has no numeric data.at',
      );
    }
  });

  it("describes a command type without echoing what is not a name", () => {
    expect(describeCommandType("pay")).toBe('"pay"');
    expect(describeCommandType(7)).toBe("without a string type (number)");
    expect(describeCommandType(null)).toBe("without a string type (null)");
    expect(describeCommandType(undefined)).toBe("without a string type (undefined)");
    expect(describeCommandType("x".repeat(65))).toBe("of a type of 65 characters that is not a name");
    expect(describeCommandType("pay; drop")).toBe("of a type of 9 characters that is not a name");
    expect(describeCommandType("9pay")).toBe("of a type of 4 characters that is not a name");
  });

  it("brands what it built, and only that", () => {
    expect(isStreamDefinition(ticketStream)).toBe(true);
    expect(isStreamDefinition(defineStream({ ...ticketDeclaration, name: "ticket-2" }))).toBe(true);
    for (const value of [null, undefined, 7, "ticket", {}, { name: "ticket" }, { [Symbol("verq.stream-definition")]: true }]) {
      expect(isStreamDefinition(value), JSON.stringify(value) ?? "undefined").toBe(false);
    }
  });

  it("names what a bad stream type name must be", () => {
    const error = thrown(() => defineStream({ ...ticketDeclaration, name: "Ticket" })) as Error;
    expect(error.message).toBe('a stream type name is 1 to 63 of a-z, 0-9 and "-", starting with a letter');
    for (const name of [7, ["ticket"]]) {
      const refused = thrown(() => defineStream({ ...ticketDeclaration, name: name as never }));
      expect(isVerqError(refused, "VERQ_INVALID_STREAM"), JSON.stringify(name)).toBe(true);
    }
  });
});
