import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

let exporter: InMemorySpanExporter | undefined;

/**
 * Registers an OpenTelemetry SDK for this test file's process, once: every span is kept in
 * memory, contexts follow async calls, and trace contexts travel as W3C `traceparent` headers.
 * Returns the exporter that holds the finished spans.
 */
export function inMemoryTracing(): InMemorySpanExporter {
  if (exporter === undefined) {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  return exporter;
}

/** A finished span as a line a failure message can show: name, ids, parent and attributes. */
export function describeSpan(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  const parent = span.parentSpanContext?.spanId ?? "-";
  return `${span.name} trace=${traceId} span=${spanId} parent=${parent} status=${span.status.code} ${JSON.stringify(span.attributes)}`;
}

/** Unregisters what {@link inMemoryTracing} registered: the API is a no-op again. */
export function stopTracing(): void {
  trace.disable();
  context.disable();
  propagation.disable();
  exporter = undefined;
}
