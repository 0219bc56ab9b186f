import fc from 'fast-check';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/logging.js';
import { volume } from '../helpers/volume.js';

// ≥ 10,000 generated malformed requests in CI (a fifth by default: test/helpers/volume.ts) through
// app.inject (no sockets): every one gets an
// OpenAI-shaped 4xx (or, for the "mutated but maybe repairable" family, anything but a 5xx),
// the process stays healthy and Object.prototype stays clean. Fixed seed: reproducible.

const SEED = 20_240_611;
const VALID = { model: 'simulator/weather', messages: [{ role: 'user', content: 'Weather in Paris?' }] };
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

interface Outcome {
  status: number;
  body: string;
}

t.test('fuzz: malformed requests → OpenAI-shaped 4xx, never a 5xx or a crash', async (t) => {
  const loaded = parseConfig(`providers:\n  simulator: {type: simulator}\nlimits: {maxDepth: 64, maxStringLength: 1000000}\n`, {}, 'fuzz');
  const { app } = await buildApp(loaded, { logger: createLogger({ level: 'silent', secrets: [] }) });
  t.teardown(() => app.close());
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  const statuses = new Map<number, number>();
  let total = 0;

  const send = async (url: string, payload: string, contentType = 'application/json'): Promise<Outcome> => {
    const res = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } });
    total += 1;
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    return { status: res.statusCode, body: res.body };
  };
  const shaped = (outcome: Outcome): boolean => {
    try {
      const error = (JSON.parse(outcome.body) as { error?: Record<string, unknown> }).error;
      return typeof error?.message === 'string' && typeof error.type === 'string' && 'param' in error && 'code' in error;
    } catch {
      return false;
    }
  };
  const client4xx = (outcome: Outcome): boolean => outcome.status >= 400 && outcome.status < 500 && shaped(outcome);
  const notServerError = (outcome: Outcome): boolean => outcome.status < 500 && (outcome.status < 400 || shaped(outcome));
  const endpoint = fc.constantFrom('/v1/chat/completions', '/v1/responses', '/v1/toolgate/lint');
  const json = (value: unknown): string => JSON.stringify(value);
  let last = performance.now();
  const laps: number[] = [];
  const lap = (): void => {
    laps.push(Math.round(performance.now() - last));
    last = performance.now();
  };

  // 1. Text that is not JSON: random strings, truncated valid bodies, binary-ish junk.
  const notJson = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
    fc.nat({ max: json(VALID).length - 2 }).map((cut) => json(VALID).slice(0, cut + 1)),
    fc.string({ unit: 'grapheme', maxLength: 50 }).map((s) => `{"model": ${s}`),
  ).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.trim() !== '';
    }
  });
  lap();
  await fc.assert(fc.asyncProperty(endpoint, notJson, async (url, text) => client4xx(await send(url, text))), { seed: SEED, numRuns: volume(2000) });

  // 2. JSON of the wrong shape: wrong types for known fields, non-object bodies.
  const wrongType = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }));
  const wrongShape = fc.oneof(
    wrongType.map((model) => ({ ...VALID, model })),
    fc.oneof(wrongType.filter((v) => !Array.isArray(v)), fc.string(), fc.constant([])).map((messages) => ({ ...VALID, messages })),
    fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.string(), { minLength: 1, maxLength: 3 })).map((m) => ({ ...VALID, messages: [m] })),
    fc.string({ maxLength: 12 }).filter((r) => !ROLES.includes(r)).map((role) => ({ ...VALID, messages: [{ role, content: 'x' }] })),
    fc.oneof(fc.string(), fc.integer(), fc.constant({})).map((stream) => ({ ...VALID, stream })),
    fc.oneof(fc.integer({ min: 129 }), fc.integer({ max: 0 }), fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true, min: 0.1, max: 100 })).map((n) => ({ ...VALID, n })),
    fc.oneof(fc.string(), fc.integer()).map((tools) => ({ ...VALID, tools })),
    wrongType.map((input) => ({ model: 'simulator/weather', input })),
    fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer())),
  );
  lap();
  await fc.assert(fc.asyncProperty(fc.constantFrom('/v1/chat/completions', '/v1/toolgate/lint'), wrongShape, async (url, body) => client4xx(await send(url, json(body)))), {
    seed: SEED,
    numRuns: volume(2000),
  });
  lap();
  await fc.assert(fc.asyncProperty(wrongShape, async (body) => notServerError(await send('/v1/responses', json(body)))), { seed: SEED, numRuns: volume(500) });

  // 3. Huge strings and lone surrogates where the gateway must read them (the model name).
  const nasty = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((s) => s.repeat(1 + Math.floor(50_000 / s.length))),
    fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\ud83d\ud83d', '\u0000', '\u202e'),
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `${s}\udc00${s}`),
  );
  // (not /lint: it never resolves the model)
  const hugeOrSurrogate = fc.tuple(fc.constantFrom('/v1/chat/completions', '/v1/responses'), nasty, fc.boolean()).map(([url, text, asProvider]) => ({ url, body: { ...VALID, input: 'x', model: asProvider ? `nope/${text}` : text } }));
  lap();
  await fc.assert(fc.asyncProperty(hugeOrSurrogate, async ({ url, body }) => client4xx(await send(url, json(body)))), { seed: SEED, numRuns: volume(1500) });

  // 4. Nesting deeper than limits.maxDepth, anywhere in the body.
  const deep = fc.tuple(endpoint, fc.integer({ min: 65, max: 5000 }), fc.constantFrom('[', '{"a":'), fc.constantFrom('content', 'tools', 'metadata'));
  lap();
  await fc.assert(
    fc.asyncProperty(deep, async ([url, depth, open, field]) => {
      const close = open === '[' ? ']' : '}';
      const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
      const text = json({ ...VALID, input: 'x' }).replace(/}$/, `,"${field}":${nested}}`);
      const outcome = await send(url, text);
      return client4xx(outcome) && outcome.body.includes('nested deeper');
    }),
    { seed: SEED, numRuns: volume(1000) },
  );

  // 5. Prototype-pollution keys at any depth, in any spelling JSON allows.
  const protoKey = fc.constantFrom('"__proto__"', '"\\u005f_proto__"', '"__pro\\u0074o__"');
  const polluted = fc.tuple(endpoint, protoKey, fc.nat({ max: 3 }), fc.boolean()).map(([url, key, where, viaConstructor]) => {
    const payload = viaConstructor ? `"constructor":{"prototype":{"polluted":"yes"}}` : `${key}:{"polluted":"yes"}`;
    const spots = [
      `{${payload},"model":"simulator/weather","messages":[{"role":"user","content":"x"}]}`,
      `{"model":"simulator/weather","messages":[{"role":"user","content":"x",${payload}}]}`,
      `{"model":"simulator/weather","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{${payload}}}}]}`,
      `{"model":"simulator/weather","input":"x","metadata":{${payload}},"messages":[{"role":"user","content":"x"}]}`,
    ];
    return { url, text: spots[where] };
  });
  lap();
  await fc.assert(fc.asyncProperty(polluted, async ({ url, text }) => client4xx(await send(url, text))), { seed: SEED, numRuns: volume(1500) });

  // 6. Plausible but broken histories (may be repaired → 200, or refused → 4xx; never a 5xx).
  const content = fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.constant(''), fc.array(fc.record({ type: fc.constantFrom('text', 'image_url', 'weird'), text: fc.string({ maxLength: 10 }) }), { maxLength: 2 }), fc.integer(), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }));
  const toolCall = fc.record(
    { id: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(undefined), fc.integer()), type: fc.constantFrom('function', 'other', undefined), function: fc.oneof(fc.record({ name: fc.oneof(fc.constantFrom('get_weather', 'unknown', ''), fc.string({ maxLength: 8 })), arguments: fc.oneof(fc.constant('{"city":"Paris"}'), fc.string({ maxLength: 20 }), fc.constant({ city: 'x' })) }, { requiredKeys: [] }), fc.constant(null)) },
    { requiredKeys: [] },
  );
  const message = fc.record(
    {
      role: fc.constantFrom(...ROLES),
      content,
      tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), fc.constant(null), fc.string({ maxLength: 4 })),
      tool_call_id: fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null)),
      name: fc.string({ maxLength: 8 }),
    },
    { requiredKeys: ['role'] },
  );
  const history = fc.record({
    model: fc.constantFrom('simulator/weather', 'simulator/weather:hermes'),
    messages: fc.array(message, { minLength: 1, maxLength: 6 }),
    tools: fc.oneof(fc.constant(TOOLS), fc.constant(undefined), fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string({ maxLength: 70 }) }) }), { maxLength: 2 })),
    stream: fc.boolean(),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required', undefined), fc.constant({ type: 'function', function: { name: 'nope' } })),
  });
  lap();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('/v1/chat/completions', '/v1/toolgate/lint'), history, async (url, body) => notServerError(await send(url, json(body)))),
    { seed: SEED, numRuns: volume(1500) },
  );
  const responsesInput = fc.record({
    model: fc.constant('simulator/weather'),
    input: fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.record({ type: fc.constantFrom('message', 'function_call', 'function_call_output', 'item_reference', 'bogus'), role: fc.constantFrom('user', 'assistant', 'x'), content: content, call_id: fc.string({ maxLength: 6 }), output: content, id: fc.string({ maxLength: 6 }) }, { requiredKeys: ['type'] }), { maxLength: 4 })),
    previous_response_id: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 10 })),
    tools: fc.oneof(fc.constant(undefined), fc.constant([{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }])),
    stream: fc.boolean(),
  });
  lap();
  await fc.assert(fc.asyncProperty(responsesInput, async (body) => notServerError(await send('/v1/responses', json(body)))), { seed: SEED, numRuns: volume(500) });

  // 7. Malformed URLs (bad %-escapes and the like) on every route: Fastify's own errors are OpenAI-shaped too.
  const urlChars = fc.constantFrom(...'%%%0123456789ABCDEFabcxyz/._-~!$&()*+,;=:@'.split(''));
  const route = fc.tuple(
    fc.constantFrom('GET /v1/models/', 'GET /v1/responses/', 'DELETE /v1/responses/', 'GET /v1/responses/x/input_items?after=', 'POST /v1/chat/completions?', 'GET /v1/'),
    fc.string({ unit: urlChars, minLength: 1, maxLength: 30 }),
  );
  await fc.assert(
    fc.asyncProperty(route, async ([prefix, junk]) => {
      const [method, path] = prefix.split(' ') as ['GET' | 'POST' | 'DELETE', string];
      const res = await app.inject({ method, url: path + junk, ...(method === 'POST' ? { payload: '{}' } : {}) });
      total += 1;
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      return notServerError({ status: res.statusCode, body: res.body }) && (res.statusCode < 400 || shaped({ status: res.statusCode, body: res.body }));
    }),
    { seed: SEED, numRuns: volume(500) },
  );

  lap();
  t.comment(`fuzz: ms per family ${laps.slice(1).join(', ')}`);
  t.comment(`fuzz: ${total} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  t.ok(total >= volume(10_000), `${total} generated requests`);
  t.notOk([...statuses.keys()].some((status) => status >= 500), 'no 5xx at all');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
  t.same(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeKeys);
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(health.statusCode, 200, 'still healthy');
  const after = await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: json({ ...VALID, tools: TOOLS }) });
  t.equal(after.statusCode, 200, 'still serving');
});
