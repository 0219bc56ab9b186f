import OpenAI from 'openai';
import t from 'tap';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { metricValue } from '../metrics/parse-exposition.js';
import { LAST_MILE_CASES } from '../toolcalls/fixtures-last-mile.js';
import { TOOLS } from '../toolcalls/helpers.js';

// Answers shaped like what real OpenAI-compatible providers send (from their documented wire
// formats), replayed through toolgate: each comes out spec-shaped, as JSON and as SSE, and every
// stream is also read with the official openai SDK's stream helpers (chat.completions.stream() and
// finalChatCompletion()), which is how most agents read streams.

interface Fixture {
  status: number;
  contentType: string;
  body: string;
}

const sse = (events: readonly object[], done = true): Fixture => ({
  status: 200,
  contentType: 'text/event-stream',
  body: `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`,
});
const json = (body: object, status = 200): Fixture => ({ status, contentType: 'application/json', body: JSON.stringify(body) });

const PROVIDER_KEY = 'sk-or-v1-provider-key-1234';

/** A gateway in front of one upstream that answers each request with the fixture named by the model id. */
async function gatewayFor(fixtures: Record<string, Fixture>, t: { teardown(fn: () => Promise<void>): void }): Promise<{ gw: TestGateway; sdk: OpenAI }> {
  const upstream = await startRawUpstream((_req, res, body) => {
    const model = (JSON.parse(body) as { model: string }).model;
    const fixture = fixtures[model];
    res.writeHead(fixture.status, { 'content-type': fixture.contentType });
    res.end(fixture.body);
  });
  const gw = await startGateway({
    yaml: `providers:\n  up: {type: openai-compatible, baseUrl: ${upstream.baseURL}, apiKey: ${PROVIDER_KEY}, retry: {maxAttempts: 1}}\n`,
    logLevel: 'silent',
  });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  return { gw, sdk: new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 }) };
}

async function postJson(gw: TestGateway, model: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: `up/${model}`, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

// Mistral reasoning models (Magistral): content is a list of `thinking` and `text` chunks, in the
// message and in stream deltas (Mistral API reference, ThinkChunk / TextChunk).
const MISTRAL_HEAD = { id: '6bd0a0f2c6b04a0e9d2d7f0c7a1e3b55', object: 'chat.completion.chunk', created: 1_750_000_000, model: 'magistral-medium-2509' };
const mistralDelta = (delta: object, finish: string | null = null, extra: object = {}) => ({ ...MISTRAL_HEAD, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
const thinking = (text: string) => ({ type: 'thinking', thinking: [{ type: 'text', text }] });

const FIXTURES: Record<string, Fixture> = {
  'magistral-json': json({
    id: 'a1c9e0d6f54d4f1cb8c4f7e2d9a0b311',
    object: 'chat.completion',
    created: 1_750_000_000,
    model: 'magistral-medium-2509',
    choices: [{
      index: 0,
      message: { role: 'assistant', tool_calls: null, content: [thinking('The user greets me. '), thinking('A short reply.'), { type: 'text', text: 'Hello! How can I help?' }] },
      finish_reason: 'stop',
    }],
    usage: { prompt_tokens: 9, total_tokens: 40, completion_tokens: 31 },
  }),
  'magistral-sse': sse([
    mistralDelta({ role: 'assistant', content: '' }),
    mistralDelta({ content: [thinking('The user ')] }),
    mistralDelta({ content: [thinking('greets me.')] }),
    mistralDelta({ content: [{ type: 'text', text: 'Hello' }] }),
    mistralDelta({ content: '! How can I help?' }),
    mistralDelta({ content: '' }, 'stop', { usage: { prompt_tokens: 9, total_tokens: 40, completion_tokens: 31 } }),
  ]),
  // Text Generation Inference (TGI 1.4–2.0 Messages API): `object: "text_completion"`, `id: ""`,
  // finish reasons `eos_token` / `stop_sequence`.
  'tgi-json': json({
    object: 'text_completion',
    id: '',
    created: 1_712_000_000,
    model: 'HuggingFaceH4/zephyr-7b-beta',
    system_fingerprint: '2.0.1-sha-f426a33',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there.' }, logprobs: null, finish_reason: 'eos_token' }],
    usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
  }),
  'tgi-sse': sse(
    ['Hello', ' there', '.', ''].map((content, i, all) => ({
      object: 'text_completion',
      id: '',
      created: 1_712_000_000,
      model: 'HuggingFaceH4/zephyr-7b-beta',
      system_fingerprint: '2.0.1-sha-f426a33',
      choices: [{ index: 0, delta: { role: 'assistant', content }, logprobs: null, finish_reason: i === all.length - 1 ? 'eos_token' : null }],
    })),
  ),
  // OpenRouter relaying a provider's rate limit: HTTP 429, the provider's word in `metadata`.
  'openrouter-429': json(
    {
      error: {
        message: 'Provider returned error',
        code: 429,
        metadata: { raw: `deepseek/deepseek-r1:free is temporarily rate-limited upstream (key ${PROVIDER_KEY}). Please retry shortly.`, provider_name: 'Chutes' },
      },
      user_id: 'user_2abc',
    },
    429,
  ),
  // The same failure inside an answer that already began as 200: a JSON body and a stream event.
  'openrouter-429-in-200': json({ error: { message: 'Rate limit exceeded: free-models-per-min.', code: 429, metadata: { headers: { 'X-RateLimit-Limit': '20' } } } }),
  'openrouter-429-sse': {
    status: 200,
    contentType: 'text/event-stream',
    body: `: OPENROUTER PROCESSING\n\ndata: ${JSON.stringify({ error: { message: 'Provider returned error', code: 429, metadata: { raw: 'upstream rate limit', provider_name: 'Targon' } } })}\n\n`,
  },
};

t.test('Mistral content chunks: a string content, the thinking in reasoning_content (JSON)', async (t) => {
  const { gw } = await gatewayFor(FIXTURES, t);
  const { status, body } = await postJson(gw, 'magistral-json');
  t.equal(status, 200);
  const message = (body.choices as Array<{ message: Record<string, unknown> }>)[0].message;
  t.equal(message.content, 'Hello! How can I help?');
  t.equal(message.reasoning_content, 'The user greets me. A short reply.');
});

t.test('Mistral content chunks in stream deltas: the SDK helper assembles a string content', async (t) => {
  const { sdk } = await gatewayFor(FIXTURES, t);
  const stream = sdk.chat.completions.stream({ model: 'up/magistral-sse', messages: [{ role: 'user', content: 'hi' }] });
  let reasoning = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: unknown; reasoning_content?: unknown } | undefined;
    if (delta?.content !== undefined && delta.content !== null) t.type(delta.content, 'string', 'every content delta is a string');
    if (typeof delta?.reasoning_content === 'string') reasoning += delta.reasoning_content;
  }
  const final = await stream.finalChatCompletion();
  t.equal(final.choices[0].message.content, 'Hello! How can I help?');
  t.equal(reasoning, 'The user greets me.');
});

t.test('TGI: object and id made spec-shaped, eos_token is stop (JSON)', async (t) => {
  const { gw } = await gatewayFor(FIXTURES, t);
  const { body } = await postJson(gw, 'tgi-json');
  t.equal(body.object, 'chat.completion');
  t.match(body.id, /^chatcmpl-\w{8,}$/);
  const choice = (body.choices as Array<{ finish_reason: string; message: { content: string } }>)[0];
  t.equal(choice.finish_reason, 'stop');
  t.equal(choice.message.content, 'Hello there.');
  t.equal(body.system_fingerprint, '2.0.1-sha-f426a33', 'the rest kept');
});

t.test('TGI stream: every chunk a chat.completion.chunk with one generated id; the SDK helper reads it', async (t) => {
  const { sdk } = await gatewayFor(FIXTURES, t);
  const stream = sdk.chat.completions.stream({ model: 'up/tgi-sse', messages: [{ role: 'user', content: 'hi' }] });
  const ids = new Set<string>();
  for await (const chunk of stream) {
    t.equal(chunk.object, 'chat.completion.chunk');
    ids.add(chunk.id);
  }
  t.equal(ids.size, 1, 'one id for the stream');
  t.match([...ids][0], /^chatcmpl-\w{8,}$/);
  const final = await stream.finalChatCompletion();
  t.equal(final.choices[0].message.content, 'Hello there.');
  t.equal(final.choices[0].finish_reason, 'stop');
});

t.test("an aggregator's 429 stays a rate limit with the provider's detail, redacted", async (t) => {
  const { gw, sdk } = await gatewayFor(FIXTURES, t);
  const { status, body } = await postJson(gw, 'openrouter-429');
  t.equal(status, 429);
  const error = body.error as { type: string; message: string };
  t.equal(error.type, 'rate_limit_error');
  t.match(error.message, /Provider returned error/);
  t.match(error.message, /Chutes/, 'which provider failed');
  t.match(error.message, /temporarily rate-limited upstream/, "the provider's own words");
  t.notMatch(error.message, PROVIDER_KEY, 'secrets scrubbed');
  const inBand = await postJson(gw, 'openrouter-429-in-200');
  t.equal(inBand.status, 429, 'an error in a 200 JSON answer: the status its body gives');
  t.equal((inBand.body.error as { type: string }).type, 'rate_limit_error');
  const stream = sdk.chat.completions.stream({ model: 'up/openrouter-429-sse', messages: [{ role: 'user', content: 'hi' }] });
  const failure = await stream.finalChatCompletion().then(
    () => undefined,
    (error: unknown) => error,
  );
  // The gateway's stream had begun (200) when the upstream's first event came: the error is the stream's last event.
  t.ok(failure instanceof OpenAI.APIError, 'the SDK raises an API error');
  t.match((failure as InstanceType<typeof OpenAI.APIError>).error, { type: 'rate_limit_error' }, 'typed as a rate limit');
  t.match((failure as Error).message, /Targon/, "with the provider's detail");
});

// Vertex / Gemini: finishReason UNEXPECTED_TOOL_CALL with the call to an undeclared tool in the
// candidate (GenerateContentResponse, JSON and alt=sse). The call is relayed; the client is told.
const UNEXPECTED = {
  candidates: [{
    content: { role: 'model', parts: [{ functionCall: { name: 'google_search', args: { query: 'weather in Paris' } } }] },
    finishReason: 'UNEXPECTED_TOOL_CALL',
    index: 0,
  }],
  usageMetadata: { promptTokenCount: 41, candidatesTokenCount: 9, totalTokenCount: 50 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'Xk9aZ4mTL8Kz1MkP4r2v8Qg',
};

t.test('Gemini UNEXPECTED_TOOL_CALL: relayed with a warning (header on JSON, metric and log on both)', async (t) => {
  const upstream = await startRawUpstream((req, res) => {
    const stream = req.url?.includes(':streamGenerateContent') === true;
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    res.end(stream ? `data: ${JSON.stringify(UNEXPECTED)}\r\n\r\n` : JSON.stringify(UNEXPECTED));
  });
  // The tool contract (on by default) re-asks a call to an undeclared tool; `pass` hands it on, the case this warning is for.
  const gw = await startGateway({
    yaml: `providers:\n  vertex: {type: gemini, baseUrl: ${upstream.url}/v1beta, apiKey: AIza-test-key-123456, retry: {maxAttempts: 1}}\ncontract: {onViolation: pass}\n`,
    logLevel: 'warn',
  });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const unknownNames = async (): Promise<number> => metricValue(await (await fetch(`${gw.url}/metrics`)).text(), 'toolgate_unknown_tool_names_total') ?? 0;
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'vertex/gemini-2.5-flash', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools }),
  });
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-warnings'), /(^|,)unexpected_tool_call=1(,|$)/, 'the JSON answer says so');
  const body = (await response.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> };
  t.equal(body.choices[0].message.tool_calls[0].function.name, 'google_search', 'the call itself is relayed (enforcement is the contract\'s)');

  const before = await unknownNames();
  // No tools declared at all (Gemini's own case for this reason): only the adapter knows.
  const sdk = new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 });
  const stream = sdk.chat.completions.stream({ model: 'vertex/gemini-2.5-flash', messages: [{ role: 'user', content: 'Weather in Paris?' }] });
  const final = await stream.finalChatCompletion();
  t.equal(final.choices[0].message.tool_calls?.[0].function.name, 'google_search');
  t.equal((await unknownNames()) - before, 1, 'counted as a call to an undeclared tool');
  t.ok(gw.logs.some((line) => line.includes('UNEXPECTED_TOOL_CALL')), 'logged');
});

// gpt-oss served without a harmony parser (no reasoning or tool parser configured): the channels
// arrive as text in `content` (openai-harmony message format). Read as servers with the parser
// return them: `final` is the content, `analysis` goes to reasoning_content, a call is a call.
const HARMONY_ANALYSIS = '<|channel|>analysis<|message|>The user wants the weather in Paris. No tool needed for a greeting.<|end|>';
const HARMONY_FINAL = `${HARMONY_ANALYSIS}<|start|>assistant<|channel|>final<|message|>Bonjour! How can I help?<|return|>`;
const HARMONY_CALL = `${HARMONY_ANALYSIS}<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>`;
const HARMONY_HEAD = { id: 'chatcmpl-9f1e2d3c4b5a', object: 'chat.completion.chunk', created: 1_755_000_000, model: 'openai/gpt-oss-120b' };
/** The text in token-sized deltas, as such a server streams it. */
const harmonySse = (text: string): Fixture => sse([
  { ...HARMONY_HEAD, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ...(text.match(/<\|[a-z]+\|>|[^<]{1,7}/g) ?? []).map((piece) => ({ ...HARMONY_HEAD, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })),
  { ...HARMONY_HEAD, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
]);
const harmonyJson = (text: string): Fixture => json({ ...HARMONY_HEAD, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] });
const HARMONY: Record<string, Fixture> = {
  'openai/gpt-oss-120b-final-json': harmonyJson(HARMONY_FINAL),
  'openai/gpt-oss-120b-final-sse': harmonySse(HARMONY_FINAL),
  'openai/gpt-oss-120b-call-json': harmonyJson(HARMONY_CALL),
  'openai/gpt-oss-120b-call-sse': harmonySse(HARMONY_CALL),
};
const WEATHER_TOOL = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const ANALYSIS_TEXT = 'The user wants the weather in Paris. No tool needed for a greeting.';

t.test('gpt-oss harmony channels in content: final is the content, analysis the reasoning (JSON and SSE)', async (t) => {
  const { gw, sdk } = await gatewayFor(HARMONY, t);
  const ask = { messages: [{ role: 'user' as const, content: 'Bonjour' }], tools: WEATHER_TOOL };
  for (const kind of ['final', 'call'] as const) {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: `up/openai/gpt-oss-120b-${kind}-json`, ...ask }),
    });
    const message = ((await response.json()) as { choices: Array<{ message: { content: string | null; reasoning_content?: string; tool_calls?: Array<{ function: { name: string; arguments: string } }> } }> }).choices[0].message;
    const stream = sdk.chat.completions.stream({ model: `up/openai/gpt-oss-120b-${kind}-sse`, ...ask });
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: unknown } | undefined;
      if (typeof delta?.reasoning_content === 'string') reasoning += delta.reasoning_content;
    }
    const streamed = (await stream.finalChatCompletion()).choices[0].message;
    for (const [how, got, thought] of [['JSON', message, message.reasoning_content], ['SSE', streamed, reasoning]] as const) {
      t.equal(thought, ANALYSIS_TEXT, `${kind} (${how}): the analysis channel is reasoning`);
      if (kind === 'final') {
        t.equal(got.content, 'Bonjour! How can I help?', `${kind} (${how}): the final channel is the content, without markers`);
        t.notOk(got.tool_calls?.length, `${kind} (${how}): no call`);
      } else {
        t.equal(got.content, null, `${kind} (${how}): nothing else was said`);
        t.same(got.tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments) as unknown]), [['get_weather', { city: 'Paris' }]], `${kind} (${how}): the call`);
      }
    }
  }
});

// The text-call last mile on the wire: an open model's calls written as text in `content`, through
// an OpenAI-compatible host without a tool parser, JSON and SSE (token-sized deltas), the stream
// read with the SDK's helper. Cases from test/toolcalls/fixtures-last-mile.ts.
const WIRE_CASES = LAST_MILE_CASES.filter((c) => c.title.startsWith('Step-3: calls without') || c.title.startsWith('MiniMax M2: an indented'));

t.test('last-mile text calls on the wire: JSON and the SDK stream helper agree with the parser', async (t) => {
  t.equal(WIRE_CASES.length, 2);
  const fixtures: Record<string, Fixture> = {};
  WIRE_CASES.forEach((c, i) => {
    fixtures[`open-model-${i}-json`] = harmonyJson(c.text);
    fixtures[`open-model-${i}-sse`] = sse([
      { ...HARMONY_HEAD, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      ...(c.text.match(/[\s\S]{1,5}/g) ?? []).map((piece) => ({ ...HARMONY_HEAD, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })),
      { ...HARMONY_HEAD, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]);
  });
  const { gw, sdk } = await gatewayFor(fixtures, t);
  for (const [i, c] of WIRE_CASES.entries()) {
    const ask = { messages: [{ role: 'user' as const, content: 'go' }], tools: TOOLS };
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: `up/open-model-${i}-json`, ...ask }),
    });
    const whole = ((await response.json()) as { choices: Array<{ message: { content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> } }> }).choices[0].message;
    const streamed = (await sdk.chat.completions.stream({ model: `up/open-model-${i}-sse`, ...ask }).finalChatCompletion()).choices[0].message;
    for (const [how, got] of [['JSON', whole], ['SSE', streamed]] as const) {
      t.same(got.tool_calls?.map((call) => ({ name: call.function.name, args: JSON.parse(call.function.arguments) as unknown })), c.calls, `${c.title} (${how}): the calls`);
      t.equal(got.content, c.content ?? null, `${c.title} (${how}): the content`);
    }
  }
});
