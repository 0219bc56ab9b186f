import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { TOOLS } from '../helpers/contract-rows.js';

// No retry storms (docs/errors.md): the official SDKs at their default settings (maxRetries 2,
// each 5xx and 429 retried) against toolgate in front of an upstream that keeps failing. An error
// toolgate already retried (its re-asks, its own retries and fallbacks ran out) says
// `x-should-retry: false`, so one client call costs at most 1 + maxReasks upstream calls (the
// contract), or the provider's maxAttempts (its own retries), counted at the upstream.

const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) => {
    if (body.model === 'm-down') return { error: { status: 500, body: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } } };
    if (body.model === 'm-limited') return { error: { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } } };
    // A model that calls a tool whatever tool_choice says.
    return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
  },
});
const breaker = '    circuitBreaker: {failureThreshold: 100}\n';
const gw = await startGateway({
  yaml: configFor(
    {
      up: { baseUrl: upstream.url, apiKey: 'k', extra: `    retry: {maxAttempts: 2, baseDelayMs: 1}\n${breaker}` },
      once: { baseUrl: upstream.url, apiKey: 'k', extra: `    retry: {maxAttempts: 1}\n${breaker}` },
    },
    `models:
  strict:
    provider: up
    model: m-strict
    contract: {onViolation: error, maxReasks: 1}
  down:
    provider: up
    model: m-down
  limited:
    provider: once
    model: m-limited
`,
  ),
});
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const sentFor = (model: string) => upstream.requests.filter((r) => r.body?.model === model).length;
// Default settings: maxRetries 2 in both SDKs.
const openai = new OpenAI({ baseURL: gw.baseURL, apiKey: 'client-key' });
const anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'client-key' });

async function failure(call: () => Promise<unknown>): Promise<{ status?: number; headers?: Headers; error?: unknown }> {
  try {
    await call();
  } catch (error) {
    const api = error as { status?: number; headers?: Headers; error?: unknown };
    return { status: api.status, headers: api.headers, error: api.error };
  }
  return {};
}

t.test('openai SDK, chat: the strict contract error costs 1 + maxReasks upstream calls, no client retry', async (t) => {
  const before = sentFor('m-strict');
  const failed = await failure(() =>
    openai.chat.completions.create({ model: 'strict', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS as OpenAI.ChatCompletionTool[], tool_choice: 'none' }),
  );
  t.equal(failed.status, 502);
  t.equal(failed.headers?.get('x-should-retry'), 'false');
  t.match(failed.error, { code: 'tool_contract_violation' });
  t.equal(sentFor('m-strict') - before, 2, 'the answer and one re-ask: the SDK did not retry');
});

t.test('openai SDK, chat stream: the same two calls, the error event ends the stream', async (t) => {
  const before = sentFor('m-strict');
  const failed = await failure(async () => {
    const stream = await openai.chat.completions.create({ model: 'strict', stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS as OpenAI.ChatCompletionTool[], tool_choice: 'none' });
    for await (const _chunk of stream);
  });
  t.match(failed.error, { code: 'tool_contract_violation' });
  t.equal(sentFor('m-strict') - before, 2);
});

t.test("openai SDK, chat: an upstream 5xx costs the provider's maxAttempts, no client retry", async (t) => {
  const before = sentFor('m-down');
  const failed = await failure(() => openai.chat.completions.create({ model: 'down', messages: [{ role: 'user', content: 'Hi' }] }));
  t.equal(failed.status, 500);
  t.equal(failed.headers?.get('x-should-retry'), 'false');
  t.equal(sentFor('m-down') - before, 2, 'toolgate retried once (maxAttempts 2); the SDK did not retry');
});

t.test("openai SDK, chat: an upstream 429 keeps its retry-after, and the client does not retry", async (t) => {
  const before = sentFor('m-limited');
  const failed = await failure(() => openai.chat.completions.create({ model: 'limited', messages: [{ role: 'user', content: 'Hi' }] }));
  t.equal(failed.status, 429);
  t.equal(failed.headers?.get('retry-after'), '2', "the upstream's own wait hint");
  t.equal(failed.headers?.get('x-should-retry'), 'false');
  t.equal(sentFor('m-limited') - before, 1);
});

t.test('@anthropic-ai/sdk, /v1/messages: the strict contract error costs 1 + maxReasks upstream calls, no client retry', async (t) => {
  const before = sentFor('m-strict');
  const failed = await failure(() =>
    anthropic.messages.create({
      model: 'strict',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      tool_choice: { type: 'none' },
    }),
  );
  t.equal(failed.status, 502);
  t.equal(failed.headers?.get('x-should-retry'), 'false');
  t.equal(sentFor('m-strict') - before, 2, 'the answer and one re-ask: the SDK did not retry');
});

t.test('@anthropic-ai/sdk, /v1/messages: an upstream 5xx is not retried by the client either', async (t) => {
  const before = sentFor('m-down');
  const failed = await failure(() => anthropic.messages.create({ model: 'down', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }));
  t.equal(failed.status, 500);
  t.equal(sentFor('m-down') - before, 2);
});

t.test('a 4xx the client sent is final', async (t) => {
  const bad = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model": "strict"}' });
  t.equal(bad.status, 400);
  t.equal(bad.headers.get('x-should-retry'), 'false');
});
