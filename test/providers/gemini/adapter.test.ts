import t from 'tap';
import { createGeminiAdapter } from '../../../src/providers/gemini/index.js';
import { answer, startGeminiEmulator, usage } from '../../emulators/gemini-server.js';
import { startRawUpstream } from '../../helpers/raw-upstream.js';
import { assemble, collect, makeContext, makeSettings, userAsks } from './helpers.js';

// The adapter against the emulator: wire shape, JSON and SSE answers, errors, timeouts, abort.

const gemini = await startGeminiEmulator();
const adapter = createGeminiAdapter(makeSettings(gemini.baseUrl));
t.teardown(async () => {
  await adapter.close?.();
  await gemini.close();
});
t.beforeEach(() => {
  gemini.setScript();
  gemini.requests.length = 0;
});

t.test('JSON: a weather call, key in the header only', async (t) => {
  const completion = await adapter.complete(userAsks('Weather in Paris?'), makeContext('gemini-2.5-flash'));
  const request = gemini.requests[0];
  t.equal(request.path, '/v1beta/models/gemini-2.5-flash:generateContent');
  t.equal(request.headers['x-goog-api-key'], 'test-gemini-key');
  t.notOk(request.keyInQuery, 'never ?key=');
  t.notOk(request.headers.authorization);
  t.equal(completion.choices[0].finish_reason, 'tool_calls');
  t.same(completion.choices[0].message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [['get_weather', { city: 'Paris' }]]);
  t.equal(completion.model, 'gemini/gemini-2.5-flash');
  t.ok(completion.usage && completion.usage.total_tokens > 0);
});

t.test('JSON: parallel calls, then an answer quoting the results', async (t) => {
  const context = makeContext('gemini-2.5-flash');
  const first = await adapter.complete(userAsks('Weather in Paris and Tokyo?'), context);
  const calls = first.choices[0].message.tool_calls ?? [];
  t.equal(calls.length, 2);
  const second = await adapter.complete(userAsks('Weather in Paris and Tokyo?', {
    messages: [
      { role: 'user', content: 'Weather in Paris and Tokyo?' },
      first.choices[0].message,
      { role: 'tool', tool_call_id: calls[1].id, content: '{"temp":25}' },
      { role: 'tool', tool_call_id: calls[0].id, content: '18C and sunny' },
    ],
  }), context);
  t.equal(second.choices[0].finish_reason, 'stop');
  t.equal(second.choices[0].message.content, 'Here is the weather: get_weather: {"output":"18C and sunny"}; get_weather: {"temp":25}');
});

t.test('SSE: the same call streamed, include_usage honoured', async (t) => {
  const chunks = await collect(await adapter.stream(userAsks('Weather in Paris and Tokyo?', { stream: true, stream_options: { include_usage: true } }), makeContext('gemini-2.5-flash')));
  t.equal(gemini.requests[0].path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  t.same(gemini.requests[0].query, { alt: 'sse' });
  const { message, finish } = assemble(chunks);
  t.equal(finish, 'tool_calls');
  t.same(message.tool_calls?.map((c) => JSON.parse(c.function.arguments).city), ['Paris', 'Tokyo']);
  t.same(chunks[chunks.length - 1].choices, []);
  t.ok(chunks[chunks.length - 1].usage);

  const text = await collect(await adapter.stream({ model: 'x', messages: [{ role: 'user', content: 'Say something long enough to split' }], stream: true }, makeContext('gemini-2.5-flash')));
  t.ok(text.filter((c) => c.choices[0]?.delta.content).length >= 2, 'text arrives in pieces');
  t.equal(assemble(text).message.content, 'Hello from the Gemini emulator. You said: Say something long enough to split');
  t.notOk(text.some((c) => c.usage), 'no usage chunk without include_usage');
});

t.test('upstream errors keep status and message', async (t) => {
  gemini.setScript(() => ({ status: 429, error: { message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] } }));
  await t.rejects(adapter.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 429, type: 'rate_limit_error', message: 'Resource has been exhausted (e.g. check quota).', headers: { 'retry-after': '3' } });
  await t.rejects(adapter.stream(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 429, code: 'resource_exhausted' }, 'stream() rejects before the first chunk');

  gemini.setScript();
  await t.rejects(adapter.complete(userAsks('hi'), makeContext('gpt-4o')), { status: 404, message: /models\/gpt-4o is not found for API version v1beta/ });
  const badKey = createGeminiAdapter(makeSettings(gemini.baseUrl, { apiKey: 'wrong' }));
  await t.rejects(badKey.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 400, code: 'api_key_invalid', message: 'API key not valid. Please pass a valid API key.' });
  await badKey.close?.();
  const noKey = createGeminiAdapter(makeSettings(gemini.baseUrl, { apiKey: undefined }));
  await t.rejects(noKey.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 401, code: 'provider_key_missing', message: /GEMINI_API_KEY/ });
});

t.test('a blocked prompt and a mid-stream error', async (t) => {
  gemini.setScript(() => ({ events: [{ promptFeedback: { blockReason: 'SAFETY' } }], response: { promptFeedback: { blockReason: 'SAFETY' } } }));
  await t.rejects(adapter.complete(userAsks('bad'), makeContext('gemini-2.5-flash')), { status: 400, code: 'content_filter' });
  await t.rejects(adapter.stream(userAsks('bad'), makeContext('gemini-2.5-flash')), { status: 400, code: 'content_filter' }, 'a blocked stream is an HTTP error, not a broken stream');

  gemini.setScript(() => ({ events: [answer([{ text: 'Hel' }], '', usage(1, 1)), { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } }] }));
  const stream = await adapter.stream(userAsks('hi'), makeContext('gemini-2.5-flash'));
  await t.rejects(collect(stream), { status: 500, message: 'An internal error has occurred.' });
});

t.test('unreadable answers are 502s', async (t) => {
  gemini.setScript(() => ({ raw: { contentType: 'application/json', body: 'not json' } }));
  await t.rejects(adapter.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 502, code: 'upstream_bad_response' });
  await t.rejects(adapter.stream(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 502, code: 'upstream_bad_response' });
  gemini.setScript(() => ({ response: { candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call' }] } }));
  const context = makeContext('gemini-2.5-flash');
  await t.rejects(adapter.complete(userAsks('hi'), context), { status: 502, message: /MALFORMED_FUNCTION_CALL/ });
  t.ok(context.logs.some((l) => l.level === 40 && /usable tool call/.test(l.msg)), 'logged at warn');
});

t.test('connection failures are 502s', async (t) => {
  const dead = createGeminiAdapter(makeSettings('http://127.0.0.1:9/v1beta'));
  await t.rejects(dead.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 502, code: 'upstream_unreachable' });
  await dead.close?.();
});

t.test('timeouts: first byte and stream idle', async (t) => {
  const quick = createGeminiAdapter(makeSettings(gemini.baseUrl, { timeoutMs: 150, streamIdleTimeoutMs: 150 }));
  t.teardown(() => quick.close?.());
  // undici's header/body timers tick at ~0.5 s resolution: the upstream is late by much more.
  gemini.setScript(() => ({ delayMs: 3_000, response: answer([{ text: 'late' }], 'STOP', usage(1, 1)) }));
  const started = Date.now();
  await t.rejects(quick.complete(userAsks('hi'), makeContext('gemini-2.5-flash')), { status: 504, code: 'upstream_timeout' });
  t.ok(Date.now() - started < 2_500, 'gave up before the upstream answered');

  gemini.setScript(() => ({ events: [answer([{ text: 'first' }], '', usage(1, 1))], hang: true }));
  const stream = await quick.stream(userAsks('hi'), makeContext('gemini-2.5-flash'));
  await t.rejects(collect(stream), { status: 504, code: 'stream_idle_timeout' });
});

t.test('client abort aborts the upstream request', async (t) => {
  gemini.setScript(() => ({ events: [answer([{ text: 'one' }], '', usage(1, 1)), answer([{ text: 'two' }], '', usage(1, 1))], eventDelayMs: 5_000 }));
  const controller = new AbortController();
  const stream = await adapter.stream(userAsks('hi'), makeContext('gemini-2.5-flash', { signal: controller.signal }));
  const iterator = stream[Symbol.asyncIterator]();
  await iterator.next();
  const started = Date.now();
  setTimeout(() => controller.abort(), 50);
  await t.rejects(async () => {
    for (;;) if ((await iterator.next()).done) break;
  });
  t.ok(Date.now() - started < 2_000, 'did not wait for the next event');
});

t.test('size caps: a JSON answer past maxResponseBytes and a stream event past maxEventBytes are 502s; a huge error body keeps its status', async (t) => {
  const cap = 64 * 1024;
  const big = 'x'.repeat(4 * cap);
  const event = (text: string) => `data: ${JSON.stringify(answer([{ text }], '', usage(1, 1)))}\n\n`;
  const raw = await startRawUpstream((req, res) => {
    const mode = /models\/([^:]+)/.exec(req.url ?? '')?.[1];
    if (mode === 'huge-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(answer([{ text: big }], 'STOP', usage(1, 1))));
    }
    if (mode === 'huge-error') {
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE', details: big } }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${mode === 'huge-later' ? event('before') : ''}${event(big)}`);
  });
  const capped = createGeminiAdapter(makeSettings(`${raw.url}/v1beta`, { maxResponseBytes: cap, maxEventBytes: cap }));
  t.teardown(async () => {
    await capped.close?.();
    await raw.close();
  });

  await t.rejects(capped.complete(userAsks('hi'), makeContext('huge-json')), {
    status: 502,
    code: 'upstream_bad_response',
    message: `Provider 'gemini' sent a response toolgate could not read: an answer larger than ${cap} bytes (providers.gemini.maxResponseBytes).`,
  });
  // Gemini reads its first event before the stream is handed on: an oversized one is a 502 status.
  await t.rejects(capped.stream(userAsks('hi'), makeContext('huge-first')), { status: 502, code: 'upstream_bad_response', message: /a stream event larger than 65536 bytes/ });
  const later = await capped.stream(userAsks('hi'), makeContext('huge-later'));
  const got: string[] = [];
  await t.rejects(async () => {
    for await (const chunk of later) got.push(chunk.choices[0]?.delta.content ?? '');
  }, { status: 502, code: 'upstream_bad_response', message: /providers\.gemini\.maxEventBytes/ });
  t.equal(got.join(''), 'before', 'the event before the oversized one reached the consumer');
  // A 256 KB error body fails no harder than a small one: its status, and the upstream's message (read
  // from the first 64 KiB: the cut JSON is quoted as text, the message at its start).
  const error = await capped.complete(userAsks('hi'), makeContext('huge-error')).catch((e: unknown) => e);
  t.match(error, { status: 503, message: /overloaded/ });
  t.ok((error as Error).message.length < 1024, 'a bounded message');
});
