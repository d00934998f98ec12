import { VerqError, checkHandledKinds, checkKindName, type FailureClassifier, type HandledKinds } from "@verq/core";
import type { ClaimedJob } from "./claim-jobs.ts";
import type { Sender } from "./finish-jobs.ts";
import { isArray } from "./job-context.ts";
import type { KindHandler } from "./job-kind.ts";

/** Who sends a claimed job, and the classifier of the errors that one knows. */
export interface Route {
  readonly send: Sender;
  readonly classify: FailureClassifier | undefined;
}

/**
 * How a worker routes: what it claims (`kinds`, absent for a worker with a sender only, which
 * takes every job) and who sends each job it claimed.
 */
export interface KindRoutes {
  readonly kinds: HandledKinds | undefined;
  route(job: ClaimedJob): Route;
}

/**
 * The routes of a worker's `sender` and `handlers`, checked: at least one of them, each handler
 * with a kind name, a function and an optional classifier, no kind twice; else
 * `VERQ_INVALID_ARGUMENT`. With handlers, the worker claims their kinds, and jobs without a kind
 * only when it has a sender; each job goes to its kind's handler with that handler's `classify`,
 * a job without a kind to the sender with the worker's `classify`. With a sender only, it claims
 * every job, whatever its kind, and the sender gets them all.
 */
export function kindRoutes(options: {
  readonly sender?: Sender | undefined;
  readonly classify?: FailureClassifier | undefined;
  readonly handlers?: readonly KindHandler[] | undefined;
}): KindRoutes {
  const { sender, classify, handlers = [] } = options;
  if (sender !== undefined && typeof sender !== "function") throw invalid("sender must be a function of the job");
  if (classify !== undefined && typeof classify !== "function") throw invalid("classify must be a function of the error");
  if (!isArray(handlers)) throw invalid("handlers must be an array of kind handlers (kind.handler(…))");
  const byKind = new Map<string, Route>();
  for (const handler of handlers) byKind.set(...checkHandler(handler, byKind));
  const toSender: Route | undefined = sender === undefined ? undefined : { send: sender, classify };
  if (toSender === undefined && byKind.size === 0) throw invalid("a worker needs a sender function or kind handlers");
  if (byKind.size === 0) return { kinds: undefined, route: () => toSender as Route };
  const kinds = checkHandledKinds({ names: [...byKind.keys()], kindless: toSender !== undefined });
  return {
    kinds,
    route: (job) => (job.kind === null ? toSender : byKind.get(job.kind)) ?? unroutable(job.kind),
  };
}

function checkHandler(handler: KindHandler, seen: ReadonlyMap<string, Route>): [string, Route] {
  const kind = checkKindName((handler as Partial<KindHandler> | null)?.kind);
  if (seen.has(kind)) throw invalid(`two handlers for job kind ${kind}: one kind has one handler`);
  if (typeof handler.handle !== "function") throw invalid(`the handler of kind ${kind} must have a handle function`);
  if (handler.classify !== undefined && typeof handler.classify !== "function") {
    throw invalid(`the classify of kind ${kind} must be a function of the error`);
  }
  return [kind, { send: handler.handle, classify: handler.classify }];
}

/**
 * A job the worker has no one for. Its claim names the kinds it handles, so the job machine
 * never hands it one (`kind-not-handled`); should a replaced decider do it, the send fails as an
 * unexpected error: recorded, and the job is left to its lease (SPEC J5).
 */
function unroutable(kind: string | null): Route {
  const error = new VerqError("VERQ_UNEXPECTED", `this worker has no handler for jobs of kind ${kind ?? "(none)"}`);
  return {
    send: () => {
      throw error;
    },
    classify: undefined,
  };
}

function invalid(message: string): VerqError {
  return new VerqError("VERQ_INVALID_ARGUMENT", message);
}
