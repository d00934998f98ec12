import { createRequire } from "node:module";
import type { TraceContext } from "@verq/core";

/** The version the `verq` tracer reports (the packages are released together, at one version). */
export const VERQ_TRACER_VERSION = "0.1.0";

/** A span attribute's value: verq sets ids, names, counts, codes and flags, never a payload or a message. */
export type SpanAttributeValue = string | number | boolean;
/** The attributes of a span; an `undefined` or `null` value is left out. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue | null | undefined>>;

/** Where a span sits in its trace: the context a span is started in, as {@link VerqTracing} hands it out. */
export interface TraceParent {
  readonly traceParent: unknown;
}

/** How a span relates to the process, as OpenTelemetry's `SpanKind` says it. */
export type VerqSpanKind = "internal" | "server" | "client" | "producer" | "consumer";

/** One span verq started; every method is a no-op when tracing is off. */
export interface VerqSpan {
  /** Adds attributes (see {@link SpanAttributes}). */
  set(attributes: SpanAttributes): void;
  /**
   * Marks the span failed. `description` and `attributes` name the failure's class or code, never
   * an error's message: a message may carry data.
   */
  fail(description: string, attributes?: SpanAttributes): void;
  /** Ends the span, now or at `endTime` (ms since the epoch). */
  end(endTime?: number): void;
  /** Runs `work` with this span active, so that the spans `work` starts are its children. */
  run<T>(work: () => T): T;
  /** This span as the parent of others. */
  readonly parent: TraceParent;
  /** Whether an SDK records it: false without one, or when its sampler left it out. */
  readonly recording: boolean;
}

/** What {@link VerqTracing.start} may be told beyond a span's name and attributes. */
export interface SpanOptions {
  /** The parent; the active context when absent. */
  readonly parent?: TraceParent | undefined;
  /** When the span started, in ms since the epoch; now when absent. */
  readonly startTime?: number;
  readonly kind?: VerqSpanKind;
}

/**
 * verq's spans through `@opentelemetry/api`, an optional peer dependency resolved once, on first
 * use. Without it every span is a no-op and nothing is injected; with it and no SDK registered the
 * API itself does nothing. Tracing observes: no rule reads what it records.
 */
export interface VerqTracing {
  /** Whether `@opentelemetry/api` was found. */
  readonly installed: boolean;
  /** Starts a span of the tracer named `verq`. */
  start(name: string, attributes: SpanAttributes, options?: SpanOptions): VerqSpan;
  /**
   * The active trace context as the registered propagator writes it into a carrier; `undefined`
   * when there is none, or when what it wrote is not a W3C `traceparent` (dropped, as a W3C
   * propagator drops such a header when it reads it).
   */
  inject(): TraceContext | undefined;
  /**
   * The parent a stored trace context names (read through the registered propagator); for none,
   * the root: a span started under it begins a trace of its own, whatever context is active.
   */
  extract(trace: TraceContext | undefined): TraceParent;
  /**
   * The parent an incoming request's `traceparent` (and `tracestate`) headers name, when no span
   * is active (an HTTP instrumentation, when there is one, has already continued them); `undefined`
   * otherwise, or when the headers hold no valid trace context.
   */
  fromHeaders(headers: Readonly<Record<string, string | readonly string[] | undefined>>): TraceParent | undefined;
  /** Runs `work` with `parent` as the active context; as it is when `parent` is `undefined`. */
  within<T>(parent: TraceParent | undefined, work: () => T): T;
}

/** A W3C `traceparent` of version 00: trace id, parent span id and flags, in lower-case hex. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A `tracestate` as W3C bounds it: printable ASCII, at most 512 characters. */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/**
 * The trace context in `carrier` when its `traceparent` is a W3C one of version 00 (ids not all
 * zero), with its `tracestate` when that is printable and at most 512 characters; otherwise
 * `undefined`.
 */
export function traceContextOf(carrier: Readonly<Record<string, unknown>>): TraceContext | undefined {
  const { traceparent, tracestate } = carrier;
  if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return undefined;
  return typeof tracestate === "string" && TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

/** The parts of `@opentelemetry/api` verq uses, described structurally: no type of it reaches verq's declarations. */
interface OtelSpan {
  setAttributes(attributes: Record<string, SpanAttributeValue>): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  isRecording(): boolean;
  end(endTime?: number): void;
}
interface OtelApi {
  readonly trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(name: string, options: Record<string, unknown>, context?: unknown): OtelSpan;
    };
    setSpan(context: unknown, span: OtelSpan): unknown;
    getSpan(context: unknown): unknown;
  };
  readonly context: { active(): unknown; with<T>(context: unknown, work: () => T): T };
  readonly propagation: {
    inject(context: unknown, carrier: Record<string, string>): void;
    extract(context: unknown, carrier: Record<string, string>): unknown;
  };
  readonly ROOT_CONTEXT: unknown;
}

// OpenTelemetry's SpanStatusCode.ERROR and SpanKind values.
const STATUS_ERROR = 2;
const SPAN_KINDS: Readonly<Record<VerqSpanKind, number>> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 };

const NO_PARENT: TraceParent = { traceParent: undefined };
const NOOP_SPAN: VerqSpan = {
  set: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  run: (work) => work(),
  parent: NO_PARENT,
  recording: false,
};

/** Tracing without `@opentelemetry/api`: nothing is recorded, nothing injected. */
const OFF: VerqTracing = {
  installed: false,
  start: () => NOOP_SPAN,
  inject: () => undefined,
  extract: () => NO_PARENT,
  fromHeaders: () => undefined,
  within: (_, work) => work(),
};

const defined = (attributes: SpanAttributes): Record<string, SpanAttributeValue> => {
  const out: Record<string, SpanAttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) out[key] = value;
  return out;
};

/** A span of the API (recorded or not), as a class: its methods are shared, none is made per span. */
class RecordedSpan implements VerqSpan {
  readonly #api: OtelApi;
  readonly #span: OtelSpan;
  readonly #parentContext: unknown;
  #active: unknown;
  readonly recording: boolean;

  constructor(api: OtelApi, span: OtelSpan, parentContext: unknown, recording: boolean) {
    this.#api = api;
    this.#span = span;
    this.#parentContext = parentContext;
    this.recording = recording;
  }

  /** The context with this span active, made when first asked for (a span nobody parents makes none). */
  get #context(): unknown {
    if (this.#active === undefined) this.#active = this.#api.trace.setSpan(this.#parentContext, this.#span);
    return this.#active;
  }

  get parent(): TraceParent {
    return { traceParent: this.#context };
  }

  set(attributes: SpanAttributes): void {
    if (this.recording) this.#span.setAttributes(defined(attributes));
  }

  fail(description: string, attributes: SpanAttributes = {}): void {
    if (!this.recording) return;
    this.#span.setStatus({ code: STATUS_ERROR, message: description });
    this.#span.setAttributes(defined(attributes));
  }

  end(endTime?: number): void {
    this.#span.end(endTime);
  }

  run<T>(work: () => T): T {
    return this.#api.context.with(this.#context, work);
  }
}

function tracingWith(api: OtelApi): VerqTracing {
  const tracer = api.trace.getTracer("verq", VERQ_TRACER_VERSION);
  const root: TraceParent = { traceParent: api.ROOT_CONTEXT };
  const extract = (trace: TraceContext | undefined): TraceParent => {
    if (trace === undefined) return root;
    const carrier: Record<string, string> = { traceparent: trace.traceparent };
    if (trace.tracestate !== undefined) carrier.tracestate = trace.tracestate;
    return { traceParent: api.propagation.extract(api.ROOT_CONTEXT, carrier) };
  };
  return {
    installed: true,
    start(name, attributes, options = {}) {
      const parent = options.parent === undefined ? api.context.active() : options.parent.traceParent;
      const span = tracer.startSpan(
        name,
        {
          kind: SPAN_KINDS[options.kind ?? "internal"],
          ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
        },
        parent,
      );
      // Attributes only for a span that is recorded: without an SDK a span costs no more than its start.
      const recording = span.isRecording();
      if (recording) span.setAttributes(defined(attributes));
      return new RecordedSpan(api, span, parent, recording);
    },
    inject() {
      const carrier: Record<string, string> = {};
      api.propagation.inject(api.context.active(), carrier);
      return carrier.traceparent === undefined ? undefined : traceContextOf(carrier);
    },
    extract,
    fromHeaders(headers) {
      if (api.trace.getSpan(api.context.active()) !== undefined) return undefined;
      const header = (name: string) => {
        const value = headers[name];
        return typeof value === "string" ? value : undefined;
      };
      const trace = traceContextOf({ traceparent: header("traceparent"), tracestate: header("tracestate") });
      return trace === undefined ? undefined : extract(trace);
    },
    within: (parent, work) => (parent === undefined ? work() : api.context.with(parent.traceParent, work)),
  };
}

let resolved: VerqTracing | undefined;

/**
 * verq's tracing, resolved on the first call: `@opentelemetry/api` as installed beside verq, or,
 * when it is not, tracing that does nothing.
 */
export function verqTracing(): VerqTracing {
  if (resolved === undefined) {
    let api: OtelApi | undefined;
    try {
      api = createRequire(import.meta.url)("@opentelemetry/api") as OtelApi;
    } catch {
      api = undefined;
    }
    resolved = api === undefined ? OFF : tracingWith(api);
  }
  return resolved;
}
