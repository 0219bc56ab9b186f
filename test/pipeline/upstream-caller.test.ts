import t from 'tap';
import { createParser } from 'eventsource-parser';
import { sseChunk, startRawUpstream, type RawUpstream } from '../helpers/raw-upstream.js';
import { startReliableGateway, type ReliableGateway } from '../helpers/reliable-gateway.js';

// Issue 16: the upstream side of the request path — failure kinds and bad upstream output.

const USER = [{ role: 'user', content: 'hello' }];

async function gatewayFor(upstream: RawUpstream, t: { teardown(fn: () => Promise<void>): void }, extra = ''): Promise<ReliableGateway> {
  const gw = await startReliableGateway(`providers:
  up:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-upstream-SECRET-1
    retry: {maxAttempts: 1}
    circuitBreaker: {failureThreshold: 1000}
${extra}`);
  t.teardown(async () => {
    gw.app.server.closeAllConnections();
    await gw.close();
    await upstream.close();
  });
  return gw;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const llmCalls = async (gw: ReliableGateway, outcome: string): Promise<number> => {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('toolgate_llm_calls_total{') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').pop()) : 0;
};

for (const endpoint of ['chat/completions', 'responses']) {
  t.test(`${endpoint}: a client that disconnects mid-stream is no provider failure and no warning`, async (t) => {
    const upstream = await startRawUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('Hel')); // then nothing: the client gives up
    });
    const gw = await gatewayFor(upstream, t);
    const abort = new AbortController();
    const body = endpoint === 'responses' ? { model: 'up/m', input: 'hello', stream: true } : { model: 'up/m', messages: USER, stream: true };
    const response = await fetch(`${gw.url}/v1/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: abort.signal });
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    t.equal(await upstream.closedEarly, true, 'the upstream request is cancelled');
    await until(() => gw.logs.some((line) => line.includes('"msg":"request"')));
    const warnings = gw.logs.filter((line) => JSON.parse(line).level >= 40);
    t.same(warnings, [], 'nothing at WARN or above');
    t.notOk(gw.logs.some((line) => /Could not reach provider|request aborted/.test(line)), 'not described as an unreachable provider');
    const access = JSON.parse(gw.logs.find((line) => line.includes('"msg":"request"'))!);
    t.equal(access.clientAborted, true);
    t.equal(access.error, undefined, 'no error on the access line');
    t.equal(await llmCalls(gw, 'aborted'), 1);
    t.equal(await llmCalls(gw, 'connect_error'), 0);
  });
}

for (const endpoint of ['chat/completions', 'responses']) {
  t.test(`${endpoint}: a client that disconnects before a JSON answer cancels the upstream call, counted as aborted`, async (t) => {
    const upstream = await startRawUpstream(() => undefined); // never answers
    const gw = await gatewayFor(upstream, t);
    const abort = new AbortController();
    const body = endpoint === 'responses' ? { model: 'up/m', input: 'hello' } : { model: 'up/m', messages: USER };
    const pending = fetch(`${gw.url}/v1/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: abort.signal }).catch(() => 'client aborted');
    await until(() => upstream.hits === 1);
    abort.abort();
    t.equal(await pending, 'client aborted');
    t.equal(await upstream.closedEarly, true, 'the upstream request is cancelled');
    await until(() => gw.logs.some((line) => line.includes('"msg":"request"')));
    t.same(gw.logs.filter((line) => JSON.parse(line).level >= 40), [], 'nothing at WARN or above');
    const access = JSON.parse(gw.logs.find((line) => line.includes('"msg":"request"'))!);
    t.equal(access.clientAborted, true);
    t.equal(await llmCalls(gw, 'aborted'), 1);
    t.equal(await llmCalls(gw, 'connect_error'), 0);
  });
}

// Bad upstream output: each body/chunk shape, JSON and SSE, chat and the bridged Responses API.
const BAD_BODIES: Record<string, unknown> = {
  'choice without message': { id: 'x', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop' }] },
  'message is a string': { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: 'hi', finish_reason: 'stop' }] },
  'tool_calls is an object': { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: { id: 'c' } } }] },
  'choices is null': { id: 'x', object: 'chat.completion', choices: null },
};
const BAD_CHUNKS: Record<string, unknown> = {
  // (A chunk that leaves `choices` out, or sends null, has no choices: see upstream-shapes.test.ts.)
  'choices is a string': { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: 'none' },
  'delta is a number': { id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: 5 }] },
  'tool_calls entry is null': { id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { tool_calls: [null] } }] },
  'a JSON array': [1, 2],
};

t.test('a malformed upstream completion is a 502 upstream_bad_response, not a 500', async (t) => {
  let next: unknown;
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(next));
  });
  const gw = await gatewayFor(upstream, t);
  for (const [name, body] of Object.entries(BAD_BODIES)) {
    next = body;
    for (const path of ['chat/completions', 'responses']) {
      const request = path === 'responses' ? { model: 'up/m', input: 'hi' } : { model: 'up/m', messages: USER };
      const response = await fetch(`${gw.url}/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
      const json: any = await response.json();
      t.equal(response.status, 502, `${name} (${path})`);
      t.equal(json.error.code, 'upstream_bad_response');
    }
  }
  t.notOk(gw.logs.some((line) => line.includes('unhandled error')), 'no unhandled error');
});

t.test('a malformed stream chunk ends the stream with upstream_bad_response, not internal_error', async (t) => {
  let next: unknown;
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('Hel'));
    res.end(`data: ${JSON.stringify(next)}\n\ndata: [DONE]\n\n`);
  });
  const gw = await gatewayFor(upstream, t);
  for (const [name, chunk] of Object.entries(BAD_CHUNKS)) {
    next = chunk;
    for (const path of ['chat/completions', 'responses']) {
      const request = path === 'responses' ? { model: 'up/m', input: 'hi', stream: true } : { model: 'up/m', messages: USER, stream: true };
      const response = await fetch(`${gw.url}/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
      const text = await response.text();
      t.match(text, /upstream_bad_response/, `${name} (${path})`);
      t.notMatch(text, /internal_error/);
    }
  }
});

/** Parses an SSE body the way a client does: every event's data must be whole. */
function parseSse(text: string): Array<{ event?: string; data: string }> {
  const events: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (message) => events.push({ event: message.event, data: message.data }) });
  parser.feed(text);
  return events;
}

t.test('SSE framing: upstream JSON spread over several data lines stays one event for the client', async (t) => {
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] }, null, 1);
    res.write(`${chunk.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  const gw = await gatewayFor(upstream, t);
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: USER, stream: true }) });
  const events = parseSse(await response.text()).filter((event) => event.data !== '[DONE]');
  t.ok(events.length > 0);
  for (const event of events) t.doesNotThrow(() => JSON.parse(event.data), 'each event is whole JSON');
  t.equal(events.map((event) => JSON.parse(event.data).choices[0]?.delta?.content ?? '').join(''), 'Hello');
});

t.test('SSE framing: native event data with line breaks and event types with CR/LF cannot forge events', async (t) => {
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: {"type": "response.created",\ndata:  "sequence_number": 0}\n\n`);
    res.end(`data: ${JSON.stringify({ type: 'response.output_text.delta\nevent: response.completed', sequence_number: 1 })}\n\n`);
  });
  const gw = await startReliableGateway(`providers:
  openai: {type: openai, baseUrl: ${upstream.baseURL}, apiKey: sk-native-1234}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const response = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-x', input: 'hi', stream: true }) });
  const events = parseSse(await response.text());
  t.same(events.map((event) => event.event), ['response.created', 'error'], 'no forged response.completed');
  t.same(JSON.parse(events[0].data), { type: 'response.created', sequence_number: 0 }, 'a multi-line data field arrives whole');
  t.equal(JSON.parse(events[1].data).code, 'upstream_bad_response');
});

t.test('SSE: an idle stream gets `: ping` comments (server.ssePingMs)', async (t) => {
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('Hel'));
    setTimeout(() => {
      res.write(sseChunk('lo'));
      res.end('data: [DONE]\n\n');
    }, 400);
  });
  const gw = await gatewayFor(upstream, t, 'server: {ssePingMs: 40}\n');
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: USER, stream: true }) });
  const text = await response.text();
  t.match(text, /\n: ping\n\n/, 'a comment line while the upstream is silent');
  const events = parseSse(text);
  t.equal(events[events.length - 1].data, '[DONE]', 'clients still read the stream as before');
});

// A stream holds its settle-on-end layer until it ends: its hooks were four closures (and the scope
// they shared) per stream; one small object now. Counted in heap bytes per open layer, no timing.
t.test('an open stream\'s settle-on-end layer holds under 200 bytes', async (t) => {
  const { settledHeap } = await import('../helpers/heap.js');
  const { settledOnEnd } = await import('../../src/pipeline/upstream-caller.js');
  type Scope = Parameters<typeof settledOnEnd>[3];
  const items: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>(() => undefined) }) };
  const permit = { report: (): void => undefined };
  const settle = (): void => undefined;
  const scope = { gateway: {}, context: { signal: new AbortController().signal }, telemetry: {}, info: {} } as unknown as Scope;
  const count = 5000;
  const held: unknown[] = new Array<unknown>(count);
  const before = await settledHeap();
  for (let i = 0; i < count; i++) held[i] = settledOnEnd(items, permit, settle, scope);
  const perLayer = ((await settledHeap()) - before) / count;
  t.ok(perLayer < 200, `${perLayer.toFixed(0)} bytes per open layer`);
  t.equal(held.length, count);
});
