import { readFileSync } from "node:fs";
import { VerqError } from "@verq/core";
import { z } from "zod";

/** The JSON types a profile can ask of a field. */
export const FIELD_TYPES = ["string", "integer", "number", "boolean"] as const;
/** One of {@link FIELD_TYPES}. */
export type FieldType = (typeof FIELD_TYPES)[number];

const fieldName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, "a field name is 1-64 letters, digits, _ . or -, starting with a letter or _");

const profileSchema = z
  .strictObject({
    /** Every field the consumer checks, in order; a message may carry more. */
    fields: z.record(fieldName, z.strictObject({ type: z.enum(FIELD_TYPES), required: z.boolean().default(true) })),
    /** The field whose value is the `processed` primary key (role `idempotency-key`). */
    idempotencyKey: fieldName,
    /** The sequence number within a group (role `sequence`); an integer. */
    sequence: fieldName,
    /** The group a sequence runs in (the course's `order_no`). */
    group: fieldName,
    /** An amount to keep in its own column, if any. */
    amount: fieldName.optional(),
    /** The first sequence number of every group: the order check counts missing numbers from it. */
    sequenceStart: z.int().min(0).default(1),
  })
  .superRefine((p, ctx) => {
    const names = Object.keys(p.fields);
    if (names.length === 0) ctx.addIssue({ code: "custom", path: ["fields"], message: "declare at least one field" });
    const role = (key: "idempotencyKey" | "sequence" | "group" | "amount", types: readonly FieldType[], required: boolean) => {
      const name = p[key];
      if (name === undefined) return;
      const field = p.fields[name];
      if (field === undefined)
        return ctx.addIssue({ code: "custom", path: [key], message: `${name} is not one of the declared fields` });
      if (!types.includes(field.type))
        ctx.addIssue({ code: "custom", path: [key], message: `${name} must be of type ${types.join(" or ")}` });
      if (required && !field.required) ctx.addIssue({ code: "custom", path: [key], message: `${name} must be a required field` });
    };
    role("idempotencyKey", ["string", "integer"], true);
    role("group", ["string", "integer"], true);
    role("sequence", ["integer"], true);
    role("amount", ["number", "integer"], false);
    const roles = [p.idempotencyKey, p.sequence, p.group, p.amount].filter((r) => r !== undefined);
    if (new Set(roles).size !== roles.length)
      ctx.addIssue({ code: "custom", path: [], message: "each role needs its own field" });
  });

/**
 * What a valid message looks like: its fields with their types and whether they are
 * required, and which field plays which role (idempotency key, group, sequence, amount).
 * Validated with zod; {@link DEFAULT_PROFILE} is the course's.
 */
export type FileQueueProfile = z.output<typeof profileSchema>;

/**
 * Parses and checks a profile (e.g. the contents of a `--profile` file). Throws
 * `VERQ_INVALID_ARGUMENT` listing every problem, so a wrong profile never starts a consumer.
 */
export function parseProfile(value: unknown): FileQueueProfile {
  const result = profileSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.length === 0 ? "profile" : i.path.join(".")}: ${i.message}`);
  throw new VerqError("VERQ_INVALID_ARGUMENT", `invalid profile: ${problems.join("; ")}`);
}

/** Reads and checks a profile file (JSON). */
export function loadProfile(path: string): FileQueueProfile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `cannot read the profile file ${path}`);
  }
  try {
    return parseProfile(JSON.parse(text) as unknown);
  } catch (error) {
    if (error instanceof SyntaxError) throw new VerqError("VERQ_INVALID_ARGUMENT", `the profile file ${path} is not valid JSON`);
    throw error;
  }
}

/** The course's profile (SPEC F2): `msg_id` (idempotency key), `order_no` (group), `seq` (sequence from 1), `amount`. */
export const DEFAULT_PROFILE: FileQueueProfile = parseProfile({
  fields: {
    msg_id: { type: "string" },
    order_no: { type: "string" },
    seq: { type: "integer" },
    amount: { type: "number" },
  },
  idempotencyKey: "msg_id",
  group: "order_no",
  sequence: "seq",
  amount: "amount",
  sequenceStart: 1,
});
