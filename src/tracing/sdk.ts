import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import { packageVersion } from '../config/paths.js';
import type { Tracing } from './types.js';
import type { TracingSettings } from './settings.js';
import { ServerSpan, type SpanEnv } from './spans.js';

// The OpenTelemetry SDK, loaded only when tracing is on (index.ts imports this file dynamically).
// A BasicTracerProvider of its own (no global registration: two gateways in one process keep their
// own), a batch processor (OTEL_BSP_* variables apply) and the OTLP exporter of the chosen
// protocol (HTTP or gRPC), which reads OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT / _COMPRESSION / certificates itself.

export async function createTracing(settings: TracingSettings, log: Logger, redact: (text: string) => string): Promise<Tracing> {
  bridgeDiagnostics(log, redact);
  const exporter = await exporterFor(settings);
  const version = packageVersion();
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: version }));
  const provider = new BasicTracerProvider({ resource, sampler: samplerFor(settings), spanProcessors: [new BatchSpanProcessor(exporter)] });
  const env: SpanEnv = {
    tracer: provider.getTracer('toolgate', version),
    propagator: new W3CTraceContextPropagator(),
    captureContent: settings.captureContent,
    redact,
  };
  return {
    settings,
    startRequest: (start) => new ServerSpan(env, start),
    shutdown: () => shutdown(provider, log),
  };
}

const SHUTDOWN_MS = 2_000;

/** Exports what is buffered; a collector that is down or slow never fails or holds the gateway's close. */
async function shutdown(provider: BasicTracerProvider, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log.warn(`tracing: spans still buffered after ${SHUTDOWN_MS} ms at shutdown were dropped`);
      resolve();
    }, SHUTDOWN_MS);
    timer.unref();
  });
  const done = provider.shutdown().catch((error: unknown) => {
    log.warn({ error: error instanceof Error ? error.message : String(error) }, 'tracing: spans buffered at shutdown could not be exported');
  });
  await Promise.race([done, late]);
  clearTimeout(timer);
}

async function exporterFor(settings: TracingSettings): Promise<SpanExporter> {
  // Only the protocol in use is loaded (gRPC brings @grpc/grpc-js).
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  if (settings.protocol === 'grpc') {
    // An http:// address is a plaintext channel, https:// TLS (OTEL_EXPORTER_OTLP_INSECURE and the
    // certificate variables are read by the exporter).
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter({ url: settings.url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: settings.url });
}

function samplerFor(settings: TracingSettings): Sampler {
  const ratio = (): Sampler => new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

const DIAG_EVERY_MS = 60_000;

/**
 * The SDK reports export failures (collector down, 4xx) through its diag logger: they become
 * gateway warnings, at most one a minute, scrubbed of configured secrets. The diag logger is
 * process-wide; the last gateway started owns it.
 */
function bridgeDiagnostics(log: Logger, redact: (text: string) => string): void {
  let last = -Infinity;
  let suppressed = 0;
  const warn = (message: string, ...args: unknown[]): void => {
    const now = Date.now();
    if (now - last < DIAG_EVERY_MS) {
      suppressed++;
      return;
    }
    last = now;
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : '')).filter(Boolean).join(' ');
    log.warn({ suppressedSinceLast: suppressed }, redact(`tracing: ${message}${detail ? ` ${detail}` : ''}`));
    suppressed = 0;
  };
  const quiet = (): void => undefined;
  const logger: DiagLogger = { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
