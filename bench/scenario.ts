import { BENCH_TOOLS } from './micro.js';

// What the load sends: a realistic tool-calling turn (system, user, an assistant with two parallel
// calls, their results, the answer, the next question) with three tools declared, so toolgate's
// validation, repair passes, name/argument normalization and metrics all run on every request.

const BASE_MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant. Use the tools when they help; answer briefly.' },
  { role: 'user', content: "What's the weather in Paris, and what time is it there?" },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
      { id: 'call_a2', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a1', content: '{"temp_c":21,"conditions":"sunny","wind_kmh":12}' },
  { role: 'tool', tool_call_id: 'call_a2', content: '{"time":"14:05","utc_offset":"+02:00"}' },
  { role: 'assistant', content: 'It is 21 °C and sunny in Paris (wind 12 km/h), and the local time is 14:05.' },
  { role: 'user', content: 'And in Tokyo?' },
];

export interface BodyOptions {
  model?: string;
  stream?: boolean;
  /** A history defect toolgate repairs (the second tool result lost its tool_call_id). */
  broken?: boolean;
}

export function requestBody(options: BodyOptions = {}): string {
  const messages = BASE_MESSAGES.map((message, index) => {
    if (options.broken && index === 4) {
      const { tool_call_id: _dropped, ...rest } = message;
      return rest;
    }
    return message;
  });
  return JSON.stringify({
    model: options.model ?? 'bench',
    messages,
    tools: BENCH_TOOLS,
    tool_choice: 'auto',
    temperature: 0.2,
    ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** The 1,000-stream phase's upstream: 20 events this far apart (5 s a stream), so that every stream is open at once. */
export const MANY_STREAM_EVENT_MS = 250;

/** Upstream path prefix per mode (bench/upstream.ts) and the toolgate model that routes there. */
export const UPSTREAM_PREFIX = { json: '', paced: '', burst: '/burst', 'paced-long': '/long', 'burst-long': '/burst/long', text: '/text', 'text-xml': '/text-xml', slow: '/slow' } as const;
export type UpstreamVariant = keyof typeof UPSTREAM_PREFIX;

export function modelFor(variant: UpstreamVariant): string {
  return variant === 'json' || variant === 'paced' ? 'bench' : `bench-${variant}`;
}

/** Feature switches beside the defaults (the inspector, tracing through the config file). */
export interface GatewayExtras {
  /** Extra top-level YAML lines, e.g. ['inspector:', '  enabled: true']. */
  yaml?: string[];
}

/** toolgate's config for the bench: one provider per upstream variant, all local; logging at warn. */
export function gatewayConfig(upstreamUrl: string, logLevel: string, extras: GatewayExtras = {}): string {
  const variants = Object.keys(UPSTREAM_PREFIX).filter((v) => v !== 'paced') as UpstreamVariant[];
  return [
    'server:',
    '  host: 127.0.0.1',
    '  port: 0',
    'logging:',
    `  level: ${logLevel}`,
    'providers:',
    ...variants.flatMap((variant) => [
      `  up-${variant}:`,
      '    type: openai-compatible',
      `    baseUrl: ${upstreamUrl}${UPSTREAM_PREFIX[variant]}/v1`,
      '    apiKey: bench-not-a-secret-key',
    ]),
    'models:',
    ...variants.flatMap((variant) => [`  ${modelFor(variant)}:`, `    provider: up-${variant}`, '    model: bench-model']),
    ...(extras.yaml ?? []),
    '',
  ].join('\n');
}
