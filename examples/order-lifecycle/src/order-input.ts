import { VerqError, type DeclaredCommand } from "@verq/core";
import type { OrderCommand } from "./order.machine.ts";

/** The most commands one request may send: they are decided together, all or none. */
export const MAX_COMMANDS = 100;

/**
 * The fields of each command and the JSON type of each. The edge checks only the shape; every
 * rule (a positive amount, paying in full, the current picker's token) is the machine's.
 */
const COMMAND_FIELDS: Readonly<Record<OrderCommand["type"], Readonly<Record<string, "string" | "number">>>> = {
  place: { customer: "string", amountCents: "number" },
  pay: { paymentId: "string", amountCents: "number" },
  pick: { picker: "string" },
  ship: { token: "number", carrier: "string" },
  cancel: { reason: "string" },
  refund: { reason: "string" },
};

/**
 * Reads the body of `POST /orders/:id/commands`: one command (a JSON object with a `type`), or an
 * array of 1 to {@link MAX_COMMANDS} of them. Anything that is not an object is
 * `VERQ_INVALID_BODY`; a command of a known type with missing, extra or mistyped fields is
 * `VERQ_INVALID_PAYLOAD`. A type the stream does not take is left to it: it refuses the request
 * with `VERQ_UNKNOWN_COMMAND`, as it refuses an empty array with `VERQ_INVALID_ARGUMENT`.
 */
export function parseCommands(body: unknown): DeclaredCommand[] {
  const list: readonly unknown[] = Array.isArray(body) ? body : [body];
  if (list.length > MAX_COMMANDS) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `send at most ${MAX_COMMANDS} commands in one request`);
  }
  return list.map(checkCommand);
}

function checkCommand(value: unknown): DeclaredCommand {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new VerqError("VERQ_INVALID_BODY", "send a command as a JSON object with a type, or an array of them");
  }
  const command = value as Record<string, unknown>;
  const type = command.type;
  if (typeof type !== "string" || !Object.hasOwn(COMMAND_FIELDS, type)) return command as DeclaredCommand;
  const fields = COMMAND_FIELDS[type as OrderCommand["type"]];
  const extra = Object.keys(command).some((key) => key !== "type" && !Object.hasOwn(fields, key));
  const mistyped = Object.entries(fields).some(([key, kind]) => typeof command[key] !== kind);
  if (extra || mistyped) {
    const shape = Object.entries(fields).map(([key, kind]) => `${key}: ${kind}`);
    throw new VerqError("VERQ_INVALID_PAYLOAD", `a ${type} command is {type, ${shape.join(", ")}} and nothing else`);
  }
  return command as DeclaredCommand;
}

/** What `GET /orders` asks for. */
export interface ListQuery {
  readonly state?: string;
  readonly after?: string;
  readonly limit?: number;
}

const QUERY_KEYS = ["state", "after", "limit"];

/**
 * Reads the query of `GET /orders`: `state` (one of `states`), `after` (an order id) and `limit`
 * (a whole number; the stream takes 1 to 1,000), each at most once; an empty value is the same as
 * none. Anything else is `VERQ_INVALID_ARGUMENT`.
 */
export function parseListQuery(query: unknown, states: readonly string[]): ListQuery {
  const fields = (typeof query === "object" && query !== null ? query : {}) as Record<string, unknown>;
  const refuse = (message: string): never => {
    throw new VerqError("VERQ_INVALID_ARGUMENT", message);
  };
  const unknown = Object.keys(fields).filter((key) => !QUERY_KEYS.includes(key));
  if (unknown.length > 0) refuse(`GET /orders takes only ${QUERY_KEYS.join(", ")}`);
  const single = (key: string): string | undefined => {
    const value = fields[key];
    if (value !== undefined && typeof value !== "string") refuse(`${key} may be given once`);
    return value === "" ? undefined : (value as string | undefined);
  };
  const state = single("state");
  if (state !== undefined && !states.includes(state)) refuse(`state is one of ${states.join(", ")}`);
  const limit = single("limit");
  if (limit !== undefined && !/^\d{1,7}$/.test(limit)) refuse("limit must be a whole number from 1 to 1000");
  return { state, after: single("after"), limit: limit === undefined ? undefined : Number(limit) };
}
