import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

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

/** The tools every request declares (three: more schema work than the one tool of a small agent). */
const BENCH_TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'get_time',
      description: 'Local time in a time zone.',
      parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'search_web',
      description: 'Search the web.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, max_results: { type: 'integer', minimum: 1, maximum: 20 } },
        required: ['query'],
      },
    },
  },
];

export function requestBody(options: { model?: string; stream?: boolean } = {}): string {
  return JSON.stringify({
    model: options.model ?? 'bench',
    messages: BASE_MESSAGES,
    tools: BENCH_TOOLS,
    tool_choice: 'auto',
    temperature: 0.2,
    ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** The 1,000-stream phase's upstream: 20 events this far apart (5 s a stream), so that every stream is open at once. */
export const MANY_STREAM_EVENT_MS = 250;

/** Upstream path prefix per mode (bench/upstream.ts) and the toolgate model that routes there. */
export const UPSTREAM_PREFIX = { json: '', paced: '', burst: '/burst', slow: '/slow' } as const;
export type UpstreamVariant = keyof typeof UPSTREAM_PREFIX;

export function modelFor(variant: UpstreamVariant): string {
  return variant === 'json' || variant === 'paced' ? 'bench' : `bench-${variant}`;
}

/** The shipped config, read at each start: what `npm start` and the image run. */
export const SHIPPED_CONFIG = new URL('../config/gateway.yaml', import.meta.url);

/**
 * toolgate's config for the bench: `config/gateway.yaml` as shipped (logging, auth, repair, the
 * inspector section, every default), only its providers and models replaced by one local provider
 * per upstream variant. `overrides` set extra paths (the inspector row: ['inspector', 'enabled']).
 */
export function gatewayConfig(upstreamUrl: string, overrides: Array<[path: string[], value: unknown]> = []): string {
  const doc = parseDocument(readFileSync(SHIPPED_CONFIG, 'utf8'));
  const variants = Object.keys(UPSTREAM_PREFIX).filter((v) => v !== 'paced') as UpstreamVariant[];
  const providers = Object.fromEntries(
    variants.map((variant) => [`up-${variant}`, { type: 'openai-compatible', baseUrl: `${upstreamUrl}${UPSTREAM_PREFIX[variant]}/v1`, apiKey: 'bench-not-a-secret-key' }]),
  );
  const models = Object.fromEntries(variants.map((variant) => [modelFor(variant), { provider: `up-${variant}`, model: 'bench-model' }]));
  doc.set('providers', doc.createNode(providers));
  doc.set('models', doc.createNode(models));
  for (const [path, value] of overrides) doc.setIn(path, value);
  return doc.toString();
}

/** What the report says of the config: the shipped file and the defaults in it that cost the most. */
export function shippedConfigNote(): string {
  const shipped = parseDocument(readFileSync(SHIPPED_CONFIG, 'utf8')).toJS() as { logging?: { level?: string }; inspector?: { enabled?: unknown } };
  return `config/gateway.yaml as shipped, providers and models pointed at the emulated upstream (logging.level ${String(shipped.logging?.level)}, inspector.enabled ${String(shipped.inspector?.enabled ?? false)})`;
}
