import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { eventProblems, messageProblems } from './shapes.js';

// What a chat answer becomes on /v1/messages: reasoning → thinking blocks (thinking_delta when
// streamed), finish reasons → stop_reason (a matched stop sequence named when the upstream says
// which, as vLLM does), usage with cached tokens, and failures in Anthropic's error shape, before
// the stream (HTTP status) and after it started (an `error` event).

interface Answer {
  reasoning?: string;
  text?: string;
  finish: string;
  stopReason?: string;
  usage?: Record<string, unknown>;
  /** Cut the stream after this many chunks with a malformed frame. */
  breakAfter?: number;
}

function completion(answer: Answer): object {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: answer.text ?? null, refusal: null, ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}) }, finish_reason: answer.finish, logprobs: null, ...(answer.stopReason ? { stop_reason: answer.stopReason } : {}) }],
    usage: answer.usage ?? { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 },
  };
}

function sse(answer: Answer): string {
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null, ...extra }] });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of (answer.reasoning ?? '').match(/.{1,7}/gs) ?? []) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of (answer.text ?? '').match(/.{1,5}/gs) ?? []) chunks.push(chunk({ content: piece }));
  chunks.push(chunk({}, answer.finish, answer.stopReason ? { stop_reason: answer.stopReason } : {}));
  chunks.push({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: answer.usage ?? { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 } });
  const frames = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  if (answer.breakAfter !== undefined) return frames.slice(0, answer.breakAfter).join('') + 'data: {"choices": [\n\n';
  return frames.join('') + 'data: [DONE]\n\n';
}

let next: Answer = { text: 'hi', finish: 'stop' };
const script: Script = (body) => ({
  raw: body.stream === true ? { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(next) } : { status: 200, body: completion(next) },
});

t.test('answers and failures', async (t) => {
  const up = await startOpenAIEmulator({ apiKey: 'sk-up', script });
  const keys = "auth:\n  keys:\n    - name: narrow\n      key: sk-gw-narrow-0123456789\n      models: ['simulator/*']\n";
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up', extra: '    retry:\n      maxAttempts: 1\n' } }, ''), logLevel: 'silent' });
  const keyed = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }, keys), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await keyed.close();
    await up.close();
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
  const request = { model: 'up/m', max_tokens: 100, messages: [{ role: 'user' as const, content: 'think' }], stop_sequences: ['END'] };

  const cases: Array<{ name: string; answer: Answer; content: unknown[]; stop: string; sequence?: string; usage?: object }> = [
    { name: 'reasoning then text', answer: { reasoning: 'Let me think about it.', text: 'Answer: 4', finish: 'stop' }, content: [{ type: 'thinking', thinking: 'Let me think about it.', signature: '' }, { type: 'text', text: 'Answer: 4' }], stop: 'end_turn' },
    { name: 'cut by max_tokens', answer: { text: 'a long', finish: 'length' }, content: [{ type: 'text', text: 'a long' }], stop: 'max_tokens' },
    { name: 'a stop sequence the upstream names', answer: { text: 'one two', finish: 'stop', stopReason: 'END' }, content: [{ type: 'text', text: 'one two' }], stop: 'stop_sequence', sequence: 'END' },
    { name: 'filtered', answer: { text: '', finish: 'content_filter' }, content: [], stop: 'refusal' },
    {
      name: 'cached prompt tokens',
      answer: { text: 'ok', finish: 'stop', usage: { prompt_tokens: 100, completion_tokens: 3, total_tokens: 103, prompt_tokens_details: { cached_tokens: 64 } } },
      content: [{ type: 'text', text: 'ok' }],
      stop: 'end_turn',
      usage: { input_tokens: 36, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 64 },
    },
  ];
  for (const c of cases) {
    next = c.answer;
    const json = await client.messages.create(request);
    t.same(messageProblems(json), [], `${c.name}: JSON shape`);
    t.same(json.content, c.content, `${c.name}: JSON content`);
    t.equal(json.stop_reason, c.stop, `${c.name}: stop_reason`);
    t.equal(json.stop_sequence, c.sequence ?? null, `${c.name}: stop_sequence`);
    if (c.usage) t.same(json.usage, c.usage, `${c.name}: usage`);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    const stream = client.messages.stream(request);
    stream.on('streamEvent', (event) => events.push(structuredClone(event)));
    const final = await stream.finalMessage();
    t.same(eventProblems(events), [], `${c.name}: events`);
    t.same(final.content, c.content, `${c.name}: stream content`);
    t.equal(final.stop_reason, c.stop, `${c.name}: stream stop_reason`);
    t.same(final.usage, json.usage, `${c.name}: stream usage = JSON usage`);
    if (c.answer.reasoning) t.ok(events.some((e) => e.type === 'content_block_delta' && e.delta.type === 'thinking_delta'), `${c.name}: thinking_delta events`);
  }
  // The SDK drops ping events before anyone sees them: read the wire.
  const wire = await (await fetch(`${gw.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ ...request, stream: true }) })).text();
  t.match(wire, /^event: message_start\ndata: .*\n\nevent: ping\ndata: \{"type":"ping"\}\n\nevent: content_block_start\n/, 'a ping event right after message_start');
  t.match(wire, /event: message_delta\ndata: .*\n\nevent: message_stop\ndata: \{"type":"message_stop"\}\n\n$/, 'message_delta, then message_stop last');

  // Before the stream: the upstream's status, Anthropic's error type.
  next = { text: 'x', finish: 'stop' };
  const raw = (body: unknown, headers: Record<string, string> = {}) => fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const shapes: Array<[string, Response, number, string]> = [
    ['missing max_tokens', await raw({ model: 'up/m', messages: [{ role: 'user', content: 'x' }] }), 400, 'invalid_request_error'],
    ['no messages', await raw({ model: 'up/m', max_tokens: 5, messages: [] }), 400, 'invalid_request_error'],
    ['malformed JSON', await raw('{"model": '), 400, 'invalid_request_error'],
    ['a role Anthropic does not have', await raw({ model: 'up/m', max_tokens: 5, messages: [{ role: 'tool', content: 'x' }] }), 400, 'invalid_request_error'],
    ['unknown model', await raw({ model: 'nowhere/m', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }), 404, 'not_found_error'],
    ['an untyped block nobody can tell', await raw({ model: 'up/m', max_tokens: 5, messages: [{ role: 'user', content: [{ foo: 1 }] }] }), 400, 'invalid_request_error'],
    ['a server tool', await raw({ model: 'up/m', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }), 400, 'invalid_request_error'],
  ];
  for (const [name, response, status, type] of shapes) {
    t.equal(response.status, status, `${name}: status`);
    const body: any = await response.json();
    t.same(Object.keys(body).sort(), ['error', 'request_id', 'type'], `${name}: Anthropic's keys`);
    t.equal(body.type, 'error');
    t.equal(body.error.type, type, `${name}: error type`);
    t.type(body.error.message, 'string');
  }
  const forbidden = await fetch(`${keyed.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'sk-gw-narrow-0123456789' }, body: JSON.stringify({ model: 'up/m', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }) });
  t.equal(forbidden.status, 403, 'a model the key may not use');
  t.equal(((await forbidden.json()) as any).error.type, 'permission_error');

  up.setScript(() => ({ error: { status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: null } } } }));
  await t.rejects(client.messages.create(request), Anthropic.InternalServerError, 'an upstream 5xx: the SDK sees a server error');
  const upstreamDown = await raw(request);
  t.ok(upstreamDown.status >= 500, 'upstream failure status');
  t.equal(((await upstreamDown.json()) as any).type, 'error');

  // After the stream started: an `error` event, which the SDK raises as an APIError.
  up.setScript(script);
  next = { text: 'partial answer here', finish: 'stop', breakAfter: 3 };
  const stream = await client.messages.create({ ...request, stream: true });
  const seen: string[] = [];
  let caught: unknown;
  try {
    for await (const event of stream) seen.push(event.type);
  } catch (error) {
    caught = error;
  }
  t.ok(caught instanceof Anthropic.APIError, 'the error event reaches the SDK as an APIError');
  const body = (caught as { error?: { type?: string; error?: { type?: string; message?: string } } }).error;
  t.equal(body?.type, 'error', "with Anthropic's error body");
  t.equal(body?.error?.type, 'api_error', 'a bad upstream stream is an api_error');
  t.same(seen.slice(0, 2), ['message_start', 'content_block_start'], 'the stream had started');
});

t.test('count_tokens', async (t) => {
  const gw = await startGateway({ yaml: configFor({}), logLevel: 'silent' });
  t.teardown(() => gw.close());
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
  const small = await client.messages.countTokens({ model: 'simulator/weather', messages: [{ role: 'user', content: 'Hello there' }] });
  t.ok(small.input_tokens >= 1, 'a count');
  const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const withTools = await client.messages.countTokens({ model: 'simulator/weather', system: [{ type: 'text', text: 'You are terse.' }], messages: [{ role: 'user', content: 'Hello there' }], tools });
  t.ok(withTools.input_tokens > small.input_tokens, 'system and tools count');
  const text = 'word '.repeat(400);
  const long = await client.messages.countTokens({ model: 'simulator/weather', messages: [{ role: 'user', content: text }] });
  t.equal(long.input_tokens, Math.ceil(text.length / 4), 'one token per 4 characters, as the gateway estimates elsewhere');
  const bad = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', body: JSON.stringify({ model: 'simulator/weather' }) });
  t.equal(bad.status, 400);
  t.equal(((await bad.json()) as any).error.type, 'invalid_request_error');
});
