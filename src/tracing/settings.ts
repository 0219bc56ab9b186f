import { OTLP_PROTOCOLS, type TracingConfig } from '../config/schema.js';

// What tracing does, from the config file's `tracing` section and the standard OpenTelemetry
// variables. The variables win over the file (they are how collectors and platforms configure an
// SDK); OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn tracing off whatever else says.
// No OpenTelemetry module is imported here: this runs whether tracing is on or off.

export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingSettings {
  /** The OTLP traces URL spans are POSTed to (gRPC: the collector's address, e.g. http://collector:4317). */
  url: string;
  protocol: OtlpProtocol;
  serviceName: string;
  sampler: SamplerName;
  /** For the ratio samplers, 0..1. */
  samplerRatio: number;
  /** Record prompts and answers on the CLIENT spans (gen_ai.input.messages / gen_ai.output.messages). */
  captureContent: boolean;
}

export type Resolved = { settings: TracingSettings; warnings: string[] } | { settings: undefined; warnings: string[] };

const DEFAULT_BASE = 'http://localhost:4318';
/** OTLP/gRPC's default port; a gRPC endpoint is used as given (the spec appends no signal path). */
const DEFAULT_GRPC = 'http://localhost:4317';
const TRACES_PATH = '/v1/traces';

/** Settings when tracing is on; `undefined` when off. Warnings name what was ignored and why. */
export function resolveTracing(config: TracingConfig, env: NodeJS.ProcessEnv): Resolved {
  const warnings: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  if (read('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { settings: undefined, warnings };
  const exporter = read('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return { settings: undefined, warnings };
  if (exporter !== undefined && exporter !== 'otlp') warnings.push(`OTEL_TRACES_EXPORTER=${exporter} is not supported (only otlp and none): using otlp`);

  const tracesEndpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const on = config.enabled || tracesEndpoint !== undefined || baseEndpoint !== undefined || exporter !== undefined;
  if (!on) return { settings: undefined, warnings };

  const protocolText = read('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? read('OTEL_EXPORTER_OTLP_PROTOCOL') ?? config.protocol;
  let protocol: OtlpProtocol = 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(protocolText)) protocol = protocolText as OtlpProtocol;
  else warnings.push(`OTLP protocol '${protocolText}' is not supported (${OTLP_PROTOCOLS.join(', ')}): using http/protobuf`);

  const base = baseEndpoint ?? config.endpoint;
  const url = tracesEndpoint ?? (protocol === 'grpc' ? (base ?? DEFAULT_GRPC) : withTracesPath(base ?? DEFAULT_BASE));
  const samplerText = read('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? config.sampler;
  const sampler = (SAMPLERS as readonly string[]).includes(samplerText) ? (samplerText as SamplerName) : 'parentbased_always_on';
  if (sampler !== samplerText) warnings.push(`OTEL_TRACES_SAMPLER=${samplerText} is not supported: using parentbased_always_on`);
  const ratioText = read('OTEL_TRACES_SAMPLER_ARG');
  let samplerRatio = config.samplerRatio;
  if (ratioText !== undefined) {
    const ratio = Number(ratioText);
    if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) samplerRatio = ratio;
    else warnings.push(`OTEL_TRACES_SAMPLER_ARG=${ratioText} is not a ratio in [0, 1]: using ${samplerRatio}`);
  }
  const capture = read('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase();
  return {
    settings: {
      url,
      protocol,
      serviceName: read('OTEL_SERVICE_NAME') ?? config.serviceName,
      sampler,
      samplerRatio,
      captureContent: capture === undefined ? config.captureContent : capture === 'true',
    },
    warnings,
  };
}

/** OTEL_EXPORTER_OTLP_ENDPOINT (and `tracing.endpoint`) is a base URL: the signal's path is appended. */
function withTracesPath(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith(TRACES_PATH) ? trimmed : trimmed + TRACES_PATH;
}
