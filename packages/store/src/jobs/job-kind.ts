import { randomUUID } from "node:crypto";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { VerqError, checkKindName, type FailureClassifier } from "@verq/core";
import type { ClaimedJob } from "./claim-jobs.ts";
import type { EnqueueInput, EnqueueOptions } from "./enqueue-jobs.ts";
import { isArray } from "./job-context.ts";

const JOB_KIND_BRAND = Symbol.for("verq.jobKind");

/** A claimed job of a kind, as its handler gets it: the payload is the kind's schema's output. */
export type KindJob<Payload> = Omit<ClaimedJob, "payload" | "kind"> & { readonly payload: Payload; readonly kind: string };

/**
 * What handles the jobs of one kind in a `JobWorker`: the kind's name, the function that delivers
 * a job (only a return of exactly `true` is success, SPEC J5) and the handler's own classifier of
 * the errors it knows. Made by {@link JobKind.handler}; a plain object of this shape works too, for
 * a kind the worker knows by name only.
 */
export interface KindHandler {
  readonly kind: string;
  readonly handle: (job: ClaimedJob) => unknown;
  readonly classify?: FailureClassifier | undefined;
}

/** A kind's handler's options. */
export interface KindHandlerOptions {
  /** The handler's rule for the errors it knows, as `JobWorkerOptions.classify` is the sender's. */
  readonly classify?: FailureClassifier;
}

/**
 * A job kind: a name, the Standard Schema its payloads must match, and how to name a job from its
 * payload. `Input` is what `queue.enqueue(kind, payload)` takes, `Output` what is stored and what
 * the handler's `job.payload` is.
 */
export interface JobKind<Input, Output> {
  readonly [JOB_KIND_BRAND]: true;
  readonly name: string;
  readonly schema: StandardSchemaV1<Input, Output>;
  /** The job id of a payload (after validation), for an idempotent enqueue; absent: a random UUID unless the enqueue names one. */
  readonly id: ((payload: Output) => string) | undefined;
  /** The worker's handler of this kind: `handle` gets the claimed job with its payload typed as the schema's output. */
  handler(handle: (job: KindJob<Output>) => unknown, options?: KindHandlerOptions): KindHandler;
}

/** What {@link defineJobKind} takes. */
export interface JobKindDefinition<Schema extends StandardSchemaV1> {
  /** A letter, then up to 63 letters, digits or `_ . : -`: it is stored with each job, a metric label and a CLI word. */
  readonly name: string;
  /** Any Standard Schema (zod, valibot, arktype, …); its output must be plain JSON. */
  readonly schema: Schema;
  /** The job id of a valid payload: the same payload then gives the same job, and enqueueing it again is a no-op. */
  readonly id?: (payload: StandardSchemaV1.InferOutput<Schema>) => string;
}

/**
 * Defines a job kind. Pure: nothing is written, and the schema is not called until an enqueue.
 * Throws `VERQ_INVALID_ARGUMENT` for a bad name, a schema that is not a Standard Schema (v1), or
 * an `id` that is not a function.
 *
 * @example
 * const sendEmail = defineJobKind({ name: "send-email", schema: z.object({ to: z.email() }) });
 * await queue.enqueue(sendEmail, { to: "ada@example.com" }, { id: "welcome-user-1" });
 * const worker = new JobWorker(queue, { owner: "w1", handlers: [sendEmail.handler(async (job) => mail(job.payload.to))] });
 */
export function defineJobKind<Schema extends StandardSchemaV1>(
  definition: JobKindDefinition<Schema>,
): JobKind<StandardSchemaV1.InferInput<Schema>, StandardSchemaV1.InferOutput<Schema>> {
  type Output = StandardSchemaV1.InferOutput<Schema>;
  const name = checkKindName(definition?.name);
  const schema: unknown = definition.schema;
  const standard = (schema as { "~standard"?: { version?: unknown; validate?: unknown } } | null)?.["~standard"];
  if (standard?.version !== 1 || typeof standard.validate !== "function") {
    throw invalid("schema must be a Standard Schema (v1), such as a zod, valibot or arktype schema");
  }
  if (definition.id !== undefined && typeof definition.id !== "function") throw invalid("id must be a function of the payload");
  return {
    [JOB_KIND_BRAND]: true,
    name,
    schema: definition.schema,
    id: definition.id,
    handler(handle: (job: KindJob<Output>) => unknown, options: KindHandlerOptions = {}): KindHandler {
      if (typeof handle !== "function") throw invalid(`the handler of kind ${name} must be a function`);
      if (options.classify !== undefined && typeof options.classify !== "function") {
        throw invalid("classify must be a function of the error");
      }
      // Validated at enqueue, stored as the schema's output: a claimed job of this kind holds one.
      return { kind: name, handle: handle as (job: ClaimedJob) => unknown, classify: options.classify };
    },
  };
}

/** Whether `value` is a {@link JobKind} (works across copies of the package, without `instanceof`). */
export function isJobKind(value: unknown): value is JobKind<unknown, unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[JOB_KIND_BRAND] === true;
}

/** The options of an enqueue of a kind: those of a job (its id included) and where it is written. */
export interface KindEnqueueOptions extends Omit<EnqueueInput, "id" | "payload" | "kind">, EnqueueOptions {
  /** The job id: the kind's `id(payload)` when absent, else a random UUID (so that no enqueue is idempotent). */
  readonly id?: string;
}

/**
 * The enqueue inputs of `payloads` of `kind`, each validated by the kind's schema first (awaited
 * when it is asynchronous), before anything is written: stored is the schema's output, under
 * `options.id`, else the kind's `id(output)`, else a random UUID. An invalid payload throws
 * `VERQ_INVALID_PAYLOAD` naming the failing fields' paths, never a value.
 */
export async function kindInputs(
  kind: JobKind<unknown, unknown>,
  payloads: readonly unknown[],
  options: KindEnqueueOptions,
): Promise<EnqueueInput[]> {
  if (!isArray(payloads)) throw invalid("enqueueMany of a kind takes an array of payloads");
  if (options.id !== undefined && payloads.length > 1) throw invalid("one id names one job: pass the kind an id function");
  const { trx: _trx, id, ...job } = options;
  const inputs: EnqueueInput[] = [];
  for (const payload of payloads) {
    const output = await validPayload(kind, payload);
    inputs.push({ ...job, id: id ?? kind.id?.(output) ?? randomUUID(), payload: output, kind: kind.name });
  }
  return inputs;
}

/** The schema's output for `payload`, or `VERQ_INVALID_PAYLOAD` naming where it failed. */
async function validPayload(kind: JobKind<unknown, unknown>, payload: unknown): Promise<unknown> {
  const result = await kind.schema["~standard"].validate(payload);
  if (result.issues === undefined) return result.value;
  throw new VerqError(
    "VERQ_INVALID_PAYLOAD",
    `the payload does not match the schema of job kind ${kind.name} at ${issuePaths(result.issues)}`,
  );
}

/** The most failing paths an error names, and the longest key of a path it shows. */
const MAX_PATHS = 5;
const MAX_KEY = 64;

/**
 * Where a schema's issues are, as `$.to`, `$.items[0].sku` (`$`: the payload itself), each once,
 * at most {@link MAX_PATHS} of them. Paths only: an issue's message may quote the value.
 */
export function issuePaths(issues: readonly StandardSchemaV1.Issue[]): string {
  const paths = [...new Set(issues.map((issue) => `$${(issue.path ?? []).map(pathPart).join("")}`))];
  const more = paths.length > MAX_PATHS ? ` and ${paths.length - MAX_PATHS} more` : "";
  return paths.slice(0, MAX_PATHS).join(", ") + more;
}

function pathPart(segment: PropertyKey | StandardSchemaV1.PathSegment): string {
  const key = typeof segment === "object" ? segment.key : segment;
  if (typeof key === "number") return `[${key}]`;
  const text = typeof key === "symbol" ? `[${key.description ?? "symbol"}]` : `.${key}`;
  return text.length > MAX_KEY ? `${text.slice(0, MAX_KEY)}…` : text;
}

function invalid(message: string): VerqError {
  return new VerqError("VERQ_INVALID_ARGUMENT", message);
}
