import type { ProcessedMessage } from "@verq/store";
import { z } from "zod";
import type { FieldType, FileQueueProfile } from "./profile.ts";

/** The longest idempotency key or group accepted, in characters. */
export const MAX_KEY_LENGTH = 256;

/** A message checked against a profile: its `processed` values and all its fields, or why it is not valid. */
export type ValidationResult =
  | { readonly ok: true; readonly processed: ProcessedMessage; readonly fields: Record<string, unknown> }
  | { readonly ok: false; readonly reason: "missing-field" | "invalid-field"; readonly detail: string };

function typeSchema(type: FieldType): z.ZodType {
  switch (type) {
    case "string":
      return z.string();
    case "integer":
      return z.int();
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
  }
}

function buildSchema(profile: FileQueueProfile): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(profile.fields)) {
    let schema = typeSchema(field.type);
    if (name === profile.idempotencyKey || name === profile.group) {
      schema = field.type === "string" ? z.string().min(1).max(MAX_KEY_LENGTH) : z.int();
    }
    if (name === profile.sequence) schema = z.int().min(profile.sequenceStart);
    shape[name] = field.required ? schema : schema.optional();
  }
  return z.looseObject(shape);
}

const schemas = new WeakMap<FileQueueProfile, z.ZodType<Record<string, unknown>>>();

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join(".");
  switch (issue.code) {
    case "invalid_type":
      return `${path}: expected ${issue.expected}`;
    case "too_small":
      return `${path}: ${issue.origin === "string" ? "empty" : `below ${String(issue.minimum)}`}`;
    case "too_big":
      return `${path}: ${issue.origin === "string" ? `longer than ${String(issue.maximum)} characters` : `above ${String(issue.maximum)}`}`;
    default:
      return `${path}: ${issue.code}`;
  }
}

/**
 * Checks a decoded message against `profile` (SPEC F2). A required field that is absent or
 * `null` → `missing-field` (every one is named); a field of the wrong type, an empty key or
 * group, a sequence below the profile's start, a number that is not a safe integer where an
 * integer is asked for → `invalid-field`. Extra fields are kept. Details name fields, never
 * values. Integer keys and groups are stored as their decimal text.
 */
export function validateMessage(value: Record<string, unknown>, profile: FileQueueProfile): ValidationResult {
  const missing = Object.entries(profile.fields)
    .filter(([name, field]) => field.required && (!Object.hasOwn(value, name) || value[name] === null))
    .map(([name]) => name);
  if (missing.length > 0) return { ok: false, reason: "missing-field", detail: `missing: ${missing.join(", ")}` };
  // An optional field given as null counts as absent.
  const present = Object.fromEntries(
    Object.entries(value).filter(([name, v]) => !(v === null && Object.hasOwn(profile.fields, name))),
  );
  let schema = schemas.get(profile);
  if (schema === undefined) {
    schema = buildSchema(profile);
    schemas.set(profile, schema);
  }
  const result = schema.safeParse(present);
  if (!result.success)
    return { ok: false, reason: "invalid-field", detail: `invalid: ${result.error.issues.map(describeIssue).join(", ")}` };
  const fields = result.data;
  const amount = profile.amount === undefined ? undefined : fields[profile.amount];
  return {
    ok: true,
    fields: value,
    processed: {
      key: String(fields[profile.idempotencyKey]),
      group: String(fields[profile.group]),
      sequence: fields[profile.sequence] as number,
      amount: typeof amount === "number" ? amount : null,
      message: JSON.stringify(value),
    },
  };
}
