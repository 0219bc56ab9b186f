import { createParser } from 'eventsource-parser';
import t from 'tap';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { rawJsonOf } from '../../src/api/raw-json.js';
import { chunkReadStats } from '../../src/providers/chunk-template.js';
import { streamChunkReader } from '../../src/providers/openai-compatible.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { prng, seedOf, smallDeltas } from '../toolcalls/deltas.js';
import { CASES, STREAM_EXTRA_TEXTS } from '../toolcalls/fixtures.js';
import { normalizeContext } from '../toolcalls/helpers.js';

// The streaming fast path of the OpenAI-compatible adapter: content events shaped like one already
// parsed are recognized from their text (src/providers/chunk-template.ts). What the client gets
// must be exactly what parsing every event gives.

const head = { id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' };
const event = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
const usageEvent = JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
/** Python's json.dumps default (vLLM, SGLang): non-ASCII as \uXXXX escapes. */
const asciiJson = (value: unknown): string => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function parseSse(text: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (message) => data.push(message.data) });
  parser.feed(text);
  return data;
}

async function gatewayWith(events: string[], t: { teardown(fn: () => Promise<void>): void }, paced = false) {
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!paced) {
      res.end(`${events.map((data) => `data: ${data}\n\n`).join('')}data: [DONE]\n\n`); // one burst
      return;
    }
    const rest = [...events.map((data) => `data: ${data}\n\n`), 'data: [DONE]\n\n'];
    const next = (): void => {
      const frame = rest.shift();
      if (frame === undefined) return void res.end();
      res.write(frame);
      setTimeout(next, 5); // separate reads, as tokens come
    };
    next();
  });
  // The adapter's own relay: the tool contract, when on, holds a call and sends it whole once judged
  // (test/e2e/contract-stream.test.ts), so it is off here.
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\ncontract:\n  enabled: false\n`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  return gw;
}

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

async function streamThrough(url: string): Promise<string[]> {
  const body = { model: 'up/m', messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS, stream: true, stream_options: { include_usage: true } };
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return parseSse(await response.text());
}

t.test('plain content events are not parsed again; role, finish and usage events are', async (t) => {
  const prose = ['Let', ' me', ' check', ' the', ' weather', '.'];
  const events = [event({ role: 'assistant', content: '' }), ...prose.map((content) => event({ content })), event({}, 'stop'), usageEvent];
  const gw = await gatewayWith(events, t);
  const before = { ...chunkReadStats };
  const got = await streamThrough(gw.url);
  t.equal(chunkReadStats.parsed - before.parsed, 4, 'parsed: the role event, the first content event, finish, usage');
  t.equal(chunkReadStats.templated - before.templated, prose.length - 1, 'every other content event recognized from its text');
  t.same(got, [...events, '[DONE]'], 'the client gets the upstream bytes, event for event');
});

t.test('events carrying a call, an opener, finish or usage still go through the full path', async (t) => {
  const native = [
    event({ role: 'assistant', content: null }),
    event({ tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    ...['{"ci', 'ty":', ' "S', 'F"}'].map((args) => event({ tool_calls: [{ index: 0, function: { arguments: args } }] })),
    event({}, 'tool_calls'),
    usageEvent,
  ];
  const gw = await gatewayWith(native, t);
  let before = { ...chunkReadStats };
  const got = await streamThrough(gw.url);
  t.equal(chunkReadStats.parsed - before.parsed, 5, "parsed and checked: role, the call's first delta (id, name), the first argument fragment, finish, usage");
  t.equal(chunkReadStats.templated - before.templated, 3, 'the other argument fragments recognized from their text');
  t.same(got, [...native, '[DONE]'], 'relayed byte for byte (the names and ids need no change)');

  // A call written as text: the events are recognized from their text, and the normalizer still
  // finds the call in their content.
  const text = ['Checking', '.\n', '<tool_call>', '{"name": "get_weather", ', '"arguments": {"city": "SF"}}', '</tool_call>'];
  const hermes = await gatewayWith([event({ role: 'assistant', content: '' }), ...text.map((content) => event({ content })), event({}, 'stop')], t);
  before = { ...chunkReadStats };
  const chunks = (await streamThrough(hermes.url)).filter((data) => data !== '[DONE]').map((data) => JSON.parse(data) as ChatChunk);
  t.equal(chunkReadStats.templated - before.templated, text.length - 1);
  const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
  t.equal(calls[0]?.function?.name, 'get_weather', 'the text call became a tool call');
  t.same(JSON.parse(calls.map((call) => call.function?.arguments ?? '').join('')), { city: 'SF' });
  t.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Checking.\n');
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'tool_calls');
});

t.test('usage: null on every chunk (vLLM) and a client that did not ask for usage: no frame carries usage', async (t) => {
  const vllm = (delta: Record<string, unknown>, finish: string | null = null): string => JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  const prose = ['One', ' two', ' three', ' four'];
  const gw = await gatewayWith([vllm({ role: 'assistant', content: '' }), ...prose.map((content) => vllm({ content })), vllm({}, 'stop'), usageEvent], t, true);
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: [{ role: 'user', content: 'count' }], stream: true }) });
  const data = parseSse(await response.text()).filter((d) => d !== '[DONE]');
  t.equal(data.length, prose.length + 2, 'role, content, finish; the usage-only chunk withheld');
  for (const d of data) t.notMatch(d, /usage/, 'usage removed from every chunk, as when every event is parsed');
  t.equal(data.map((d) => (JSON.parse(d) as ChatChunk).choices[0].delta.content ?? '').join(''), prose.join(''));
});

/** What the client would get for `events`: every normalized chunk as it is written, ids masked (they are random). */
function clientFrames(events: string[], templates: boolean): string {
  const read = streamChunkReader('up', templates);
  const normalizer = createStreamNormalizer(normalizeContext());
  const out: ChatChunk[] = [];
  for (const data of events) normalizer.push(read({ data }), out);
  normalizer.end(out);
  return out.map((chunk) => rawJsonOf(chunk) ?? JSON.stringify(chunk)).join('\n').replace(/"call_[A-Za-z0-9]+"/g, '"call_X"');
}

t.test('property: the fast path gives the client what parsing every event gives, over random splits of answers in many formats', async (t) => {
  const texts = [...CASES.map((c) => c.text), ...STREAM_EXTRA_TEXTS];
  const shapes: Array<(delta: Record<string, unknown>, finish: string | null) => string> = [
    (delta, finish) => event(delta, finish),
    // vLLM / SGLang: ASCII-only JSON, usage null on every chunk
    (delta, finish) => asciiJson({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null }),
    // no logprobs field, a system fingerprint, spaces after colons
    (delta, finish) => JSON.stringify({ ...head, system_fingerprint: 'fp_1', choices: [{ index: 0, delta, finish_reason: finish }] }).replace(/":/g, '": '),
  ];
  let templated = 0;
  let compared = 0;
  for (const text of texts) {
    for (const [s, shape] of shapes.entries()) {
      for (let round = 0; round < 3; round++) {
        const deltas = smallDeltas(text, prng(seedOf(text) + 31 * s + round));
        const events = [shape({ role: 'assistant', content: '' }, null), ...deltas.map((content) => shape({ content }, null)), shape({}, 'stop'), usageEvent];
        const before = chunkReadStats.templated;
        const fast = clientFrames(events, true);
        templated += chunkReadStats.templated - before;
        const slow = clientFrames(events, false);
        if (fast !== slow) t.equal(fast, slow, `${JSON.stringify(text.slice(0, 40))} shape ${s} round ${round}`);
        compared++;
      }
    }
  }
  // Native calls: each expected call of the cases streamed as a header and random argument fragments.
  for (const [n, call] of CASES.flatMap((c) => c.calls ?? []).entries()) {
    for (const [s, shape] of shapes.entries()) {
      const args = smallDeltas(JSON.stringify(call.args), prng(n * 7 + s));
      const events = [
        shape({ role: 'assistant', content: null }, null),
        shape({ tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: call.name, arguments: '' } }] }, null),
        ...args.map((fragment) => shape({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }, null)),
        shape({}, 'tool_calls'),
        usageEvent,
      ];
      const before = chunkReadStats.templated;
      const fast = clientFrames(events, true);
      templated += chunkReadStats.templated - before;
      const slow = clientFrames(events, false);
      if (fast !== slow) t.equal(fast, slow, `native ${call.name} shape ${s}`);
      compared++;
    }
  }
  t.ok(compared > 100, `${compared} streams compared`);
  t.ok(templated > compared * 5, `the fast path was taken (${templated} events)`);
});

// The adapter's own refusals of an upstream answer, JSON and stream, each read in one async step
// with its checks: an error status keeps the upstream's message; a stream request answered with
// something other than an event stream is a 502 that says what came instead.
t.test('a stream answered without an event stream, and error statuses, reach the client as the catalogue says', async (t) => {
  const upstream = await startRawUpstream((req, res, body) => {
    const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
    if (req.url?.includes('/fail/')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit', code: 'rate_limited' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(stream ? '{"note":"not a stream"}' : JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }] }));
  });
  const gw = await startGateway({
    yaml: `providers:\n  up: {type: openai-compatible, baseUrl: ${upstream.baseURL}, apiKey: sk-up-1, retry: {maxAttempts: 1}}\n  fail: {type: openai-compatible, baseUrl: ${upstream.url}/fail/v1, apiKey: sk-up-2, retry: {maxAttempts: 1}}\n`,
    logLevel: 'silent',
  });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const ask = async (model: string, stream: boolean): Promise<{ status: number; body: string; retryAfter: string | null }> => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }) });
    return { status: response.status, body: await response.text(), retryAfter: response.headers.get('retry-after') };
  };
  const json = await ask('up/m', false);
  t.equal(json.status, 200, 'a JSON answer goes through');
  t.match(json.body, /"content":"hi"/);
  const notStream = await ask('up/m', true);
  t.equal(notStream.status, 502, 'a stream answered with JSON: 502');
  const refusal = (JSON.parse(notStream.body) as { error: { message: string; code: string } }).error;
  t.equal(refusal.code, 'upstream_bad_response');
  t.match(refusal.message, `expected an event stream, got 'application/json' ({"note":"not a stream"})`, 'saying what came instead');
  for (const stream of [false, true]) {
    const failed = await ask('fail/m', stream);
    t.equal(failed.status, 429, `stream ${stream}: the upstream's status`);
    t.match(failed.body, /slow down/, `stream ${stream}: the upstream's message`);
    t.equal(failed.retryAfter, '7', `stream ${stream}: its wait hint`);
  }
});
