import type { FastifyReply } from 'fastify';
import t from 'tap';
import type { ChatCompletion } from '../../src/api/chat-types.js';
import { rawJsonOf, withRawJson } from '../../src/api/raw-json.js';
import { checkedCompletion } from '../../src/providers/upstream-shapes.js';
import { sendCompletion } from '../../src/routes/chat-completions.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { normalizeContext, TOOLS } from '../toolcalls/helpers.js';

// A JSON answer that normalization left as it is goes to the client as the upstream's own text
// (src/routes/chat-completions.ts sendCompletion). What the client gets must be the same JSON value
// the serialized answer is, over a family of answers, also those normalization must change.

/** Python's json.dumps default (vLLM, SGLang): non-ASCII as \uXXXX escapes. */
const asciiJson = (value: unknown): string => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const FORMATS: Record<string, (value: unknown) => string> = {
  compact: (value) => JSON.stringify(value),
  pretty: (value) => JSON.stringify(value, null, 2),
  ascii: asciiJson,
};

const call = (id: string, name: string, args = '{"city":"Paris"}'): Record<string, unknown> => ({ id, type: 'function', function: { name, arguments: args } });
const MESSAGES: Record<string, { message: Record<string, unknown>; finish: string }> = {
  prose: { message: { role: 'assistant', content: 'Voilà, il fait beau à 東京 🌦' }, finish: 'stop' },
  'null content': { message: { role: 'assistant', content: null }, finish: 'stop' },
  'native call': { message: { role: 'assistant', content: null, tool_calls: [call('call_a1', 'get_weather')] }, finish: 'tool_calls' },
  'native call, finish stop': { message: { role: 'assistant', content: null, tool_calls: [call('call_a1', 'get_weather')] }, finish: 'stop' },
  'native call, name to map': { message: { role: 'assistant', content: null, tool_calls: [call('call_a1', 'Get-Weather')] }, finish: 'tool_calls' },
  'native calls, same id': { message: { role: 'assistant', content: null, tool_calls: [call('call_x', 'get_weather'), call('call_x', 'get_time', '{}')] }, finish: 'tool_calls' },
  'native call, arguments to repair': { message: { role: 'assistant', content: null, tool_calls: [call('call_a1', 'get_weather', "{'city': 'Paris',}")] }, finish: 'tool_calls' },
  'text call': { message: { role: 'assistant', content: 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>' }, finish: 'stop' },
};

function completionOf(choices: Record<string, unknown>[], extra: Record<string, unknown>): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1_700_000_000, model: 'm', choices, usage: { prompt_tokens: 3, completion_tokens: 1e2, total_tokens: 103.0 }, ...extra };
}

/** The family: every message shape, with and without `refusal`, one or two choices, in each text format. */
function* family(): Generator<{ title: string; text: string }> {
  for (const [shape, { message, finish }] of Object.entries(MESSAGES)) {
    for (const refusal of [false, true]) {
      for (const choiceCount of [1, 2]) {
        for (const [format, write] of Object.entries(FORMATS)) {
          const withRefusal = refusal ? { ...message, refusal: null } : message;
          const choices = Array.from({ length: choiceCount }, (_, index) => ({ index, message: choiceCount === 2 && index === 1 ? { role: 'assistant', content: 'x', refusal: null } : withRefusal, logprobs: null, finish_reason: finish }));
          yield { title: `${shape}, refusal ${refusal}, ${choiceCount} choice(s), ${format}`, text: write(completionOf(choices, { system_fingerprint: 'fp_1', service_tier: 'default' })) };
        }
      }
    }
  }
}

/** What sendCompletion hands to Fastify: a string (the raw text, typed JSON) or an object Fastify serializes. */
function sent(completion: ChatCompletion): { text: string; raw: boolean } {
  let payload: unknown;
  let type: string | undefined;
  const reply = {
    type(value: string) {
      type = value;
      return reply;
    },
    send(value: unknown) {
      payload = value;
      return reply;
    },
  };
  sendCompletion(reply as unknown as FastifyReply, completion);
  if (typeof payload === 'string') {
    if (type !== 'application/json; charset=utf-8') throw new Error(`raw text sent as ${type}`);
    return { text: payload, raw: true };
  }
  return { text: JSON.stringify(payload), raw: false };
}

t.test('the relayed text is the same JSON value as the serialized answer, over the family', async (t) => {
  let relayed = 0;
  let serialized = 0;
  let insertedCount = 0;
  for (const tools of [TOOLS, []]) {
    for (const { title, text } of family()) {
      const ctx = normalizeContext(tools);
      const fast = normalizeCompletion(withRawJson(checkedCompletion('up', JSON.parse(text)), text), ctx).completion;
      // The slow path: the same normalized answer, with no upstream text to relay.
      const copy = JSON.parse(JSON.stringify(fast)) as ChatCompletion;
      const unchanged = rawJsonOf(fast) === text;
      const fastOut = sent(fast);
      const slowOut = sent(copy);
      t.same(JSON.parse(fastOut.text), JSON.parse(slowOut.text), `${title}, ${tools.length} tools`);
      t.notOk(slowOut.raw);
      if (fastOut.raw) {
        relayed++;
        t.ok(unchanged, `only an answer normalization left as it is is relayed: ${title}`);
        // Byte for byte, but for a `"refusal":null,` put first into a message that lacked one.
        const inserted = fastOut.text.length !== text.length;
        t.equal(inserted ? fastOut.text.replaceAll('{"refusal":null,', '{') : fastOut.text, text, 'byte for byte');
        if (inserted) insertedCount++;
      } else serialized++;
      // Sent a second time (the refusal field now added in place), the answer is still what the client got.
      t.same(JSON.parse(sent(fast).text), JSON.parse(slowOut.text), `${title}: sent again`);
    }
  }
  t.ok(relayed > 0 && serialized > 0 && insertedCount > 0, `both paths taken (${relayed} relayed, ${insertedCount} of them with refusal put in, ${serialized} serialized)`);
});

t.test('through the gateway: an unchanged answer arrives as the upstream wrote it; one to change is serialized', async (t) => {
  const answers = [
    JSON.stringify(completionOf([{ index: 0, message: { role: 'assistant', content: 'h\u00e9llo', refusal: null }, logprobs: null, finish_reason: 'stop' }], {}), null, 2),
    asciiJson(completionOf([{ index: 0, message: { role: 'assistant', content: null, refusal: null, tool_calls: [call('call_Kq3mZ8vN2xLp7RtY4wBc9DfH', 'get_weather')] }, logprobs: null, finish_reason: 'tool_calls' }], {})),
    JSON.stringify(completionOf([{ index: 0, message: { role: 'assistant', content: 'plain' }, logprobs: null, finish_reason: 'stop' }], {}), null, 2),
    JSON.stringify(completionOf([{ index: 0, message: { role: 'assistant', content: 'compact' }, logprobs: null, finish_reason: 'stop' }], {})),
  ];
  let next = 0;
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answers[next++]);
  });
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\n`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const ask = async () => {
    const body = { model: 'up/m', messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS.slice(0, 1) };
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, type: response.headers.get('content-type'), id: response.headers.get('x-request-id'), text: await response.text() };
  };
  for (const answer of answers.slice(0, 2)) {
    const got = await ask();
    t.equal(got.status, 200);
    t.equal(got.type, 'application/json; charset=utf-8');
    t.ok(got.id, 'x-request-id');
    t.equal(got.text, answer, 'the upstream text, byte for byte');
  }
  const got = await ask();
  const expected = JSON.parse(answers[2]) as { choices: { message: Record<string, unknown> }[] };
  expected.choices[0].message.refusal = null;
  t.equal(got.text, JSON.stringify(expected), 'refusal added: serialized');
  const compact = await ask();
  t.equal(compact.type, 'application/json; charset=utf-8');
  t.equal(compact.text, answers[3].replace('"message":{', '"message":{"refusal":null,'), 'refusal added to a compact answer: put into its text');
});

t.test('x-request-id goes out with every reply head: JSON, SSE, an error, an unknown route', async (t) => {
  const upstream = await startRawUpstream((req, res, body) => {
    if ((JSON.parse(body) as { stream?: boolean }).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completionOf([{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], {})));
  });
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\n`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const post = (path: string, body: unknown, id?: string) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(id ? { 'x-request-id': id } : {}) }, body: JSON.stringify(body) });
  const chat = { model: 'up/m', messages: [{ role: 'user', content: 'hi' }] };
  for (const [title, response] of [
    ['JSON', await post('/v1/chat/completions', chat, 'client-id-1')],
    ['SSE', await post('/v1/chat/completions', { ...chat, stream: true }, 'client-id-1')],
    ['invalid body', await post('/v1/chat/completions', { model: 'up/m' }, 'client-id-1')],
    ['unknown route', await post('/v1/nowhere', {}, 'client-id-1')],
  ] as const) {
    await response.text();
    t.equal(response.headers.get('x-request-id'), 'client-id-1', `${title}: the client's id`);
  }
  const own = await post('/v1/chat/completions', chat);
  await own.text();
  t.match(own.headers.get('x-request-id'), /\S{8,}/, 'a generated id otherwise');
});
