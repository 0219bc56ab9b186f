import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { startRawUpstream, sseChunk } from '../helpers/raw-upstream.js';
import { isOpenAIError } from '../helpers/reliable-gateway.js';

// Upstream answers are bounded in bytes: a JSON answer past providers.<name>.maxResponseBytes and a
// stream event past maxEventBytes end in 502 upstream_bad_response (or a final SSE error frame once
// the stream started), reading stops (the upstream sees its connection closed), and the gateway
// keeps serving. The upstream offers 128 MB each time; what it manages to write before the close is
// the cap plus what the loopback sockets buffer (a few MB), never the whole.

const CAP = 1024 * 1024;
const OFFERED = 128 * 1024 * 1024;
/** The cap plus the most two loopback socket buffers plus undici's read-ahead could hold here: far below OFFERED. */
const WRITTEN_BOUND = CAP + 48 * 1024 * 1024;
const FILL = Buffer.alloc(64 * 1024, 'x');

let written = 0;
/** Writes FILL with backpressure until `total` bytes went out or the client closed; then `tail`. */
function pump(res: ServerResponse, total: number, tail: string): void {
  const next = (): void => {
    while (written < total && !res.destroyed) {
      written += FILL.length;
      if (!res.write(FILL)) return void res.once('drain', next);
    }
    if (!res.destroyed) res.end(tail);
  };
  next();
}

const completion = (content: string) => ({
  id: 'chatcmpl-caps',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const upstream = await startRawUpstream((req, res, raw) => {
  const body = JSON.parse(raw) as { model: string; stream?: boolean };
  written = 0;
  const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
  upstreamClosed = () => closed;
  switch (body.model) {
    case 'huge-json': {
      // A well-formed completion whose content never seems to end.
      res.writeHead(200, { 'content-type': 'application/json' });
      const json = JSON.stringify(completion('CONTENT-START'));
      const [head, tail] = json.split('CONTENT-START');
      res.write(head);
      return pump(res, OFFERED, tail);
    }
    case 'huge-error':
      res.writeHead(503, { 'content-type': 'application/json' });
      res.write('{"error":{"message":"engine overloaded","type":"server_error","detail":"');
      return pump(res, OFFERED, '"}}');
    case 'endless-event':
      // Two good chunks, then one data: line that never ends.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('Hel') + sseChunk('lo'));
      res.write('data: {"id":"chatcmpl-raw","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"');
      return pump(res, OFFERED, '"},"finish_reason":null}]}\n\ndata: [DONE]\n\n');
    case 'endless-first-event':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"chatcmpl-raw","choices":[{"index":0,"delta":{"content":"');
      return pump(res, OFFERED, '"},"finish_reason":null}]}\n\ndata: [DONE]\n\n');
    default:
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end(sseChunk('fine') + sseChunk('', { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + 'data: [DONE]\n\n');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(req.url?.endsWith('/responses') ? 'native' : 'fine')));
  }
});

const provider = (type: string) => `    type: ${type}
    baseUrl: ${upstream.baseURL}
    apiKey: sk-caps-SECRET-1
    maxResponseBytes: ${CAP}
    maxEventBytes: ${CAP}
    retry: {maxAttempts: 1}
`;
const gw = await startGateway({ yaml: `providers:\n  up:\n${provider('openai-compatible')}  native:\n${provider('openai')}`, logLevel: 'warn' });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

async function post(model: string, stream: boolean, endpoint: 'chat/completions' | 'responses' = 'chat/completions'): Promise<{ status: number; text: string }> {
  const body = endpoint === 'responses' ? { model, stream, input: 'hi' } : { model, stream, messages: [{ role: 'user', content: 'hi' }] };
  const response = await fetch(`${gw.url}/v1/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** The data of each SSE event, in order. */
const sseData = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));

/** Resolves once the latest upstream response finished or lost its connection. */
let upstreamClosed: () => Promise<void> = () => Promise.resolve();

async function healthy(t: Test): Promise<void> {
  const next = await post('up/ok', false);
  t.equal(next.status, 200, 'the next request is served');
  t.equal(JSON.parse(next.text).choices[0].message.content, 'fine');
  const streamed = await post('up/ok', true);
  t.equal(sseData(streamed.text).at(-1), '[DONE]', 'and the next stream');
}

t.test('a JSON answer past maxResponseBytes: 502 upstream_bad_response, reading stopped', async (t) => {
  const res = await post('up/huge-json', false);
  t.equal(res.status, 502);
  const json = JSON.parse(res.text);
  t.ok(isOpenAIError(json), 'OpenAI error shape');
  t.equal(json.error.code, 'upstream_bad_response');
  t.match(json.error.message, `an answer larger than ${CAP} bytes (providers.up.maxResponseBytes)`);
  t.notMatch(res.text, /xxxx|sk-caps/, 'no body content, no key');
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes before its connection closed`);
  await healthy(t);
});

t.test('a huge error body: its status and message from the first 64 KiB, the rest not read', async (t) => {
  const res = await post('up/huge-error', false);
  t.equal(res.status, 503, "the upstream's status, as for a small error body");
  const json = JSON.parse(res.text);
  t.ok(isOpenAIError(json));
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes`);
  t.ok(res.text.length < 64 * 1024, 'the message is a bounded prefix');
  await healthy(t);
});

t.test('a stream event that never ends: what came before, then an error frame; reading stopped', async (t) => {
  const res = await post('up/endless-event', true);
  t.equal(res.status, 200, 'the stream had started');
  const data = sseData(res.text);
  const contents = data.slice(0, -1).map((d) => JSON.parse(d).choices[0]?.delta?.content ?? '').join('');
  t.equal(contents, 'Hello', 'the chunks before the endless event reached the client');
  const last = JSON.parse(data.at(-1) ?? '{}');
  t.equal(last.error?.code, 'upstream_bad_response', 'a final error frame, no [DONE]');
  t.match(last.error?.message, `a stream event larger than ${CAP} bytes (providers.up.maxEventBytes)`);
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes before its connection closed`);
  await healthy(t);
});

t.test('an endless first event: the stream (already accepted) is one error frame', async (t) => {
  // The OpenAI-compatible adapter hands the stream on once the upstream accepted it (as for any bad
  // first event): the client gets the headers, then the error frame. (Gemini reads its first event
  // before that: there it is a 502, see test/providers/gemini/adapter.test.ts.)
  const res = await post('up/endless-first-event', true);
  t.equal(res.status, 200);
  const data = sseData(res.text);
  t.equal(data.length, 1, 'nothing but the error frame');
  const json = JSON.parse(data[0]);
  t.ok(isOpenAIError(json));
  t.equal(json.error.code, 'upstream_bad_response');
  t.match(json.error.message, 'maxEventBytes');
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes`);
  await healthy(t);
});

t.test('native /responses (an openai provider): the same caps on its JSON answer and its events', async (t) => {
  const json = await post('native/huge-json', false, 'responses');
  t.equal(json.status, 502);
  t.equal(JSON.parse(json.text).error.code, 'upstream_bad_response');
  t.match(JSON.parse(json.text).error.message, 'providers.native.maxResponseBytes');
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes`);

  const stream = await post('native/endless-first-event', true, 'responses');
  t.equal(stream.status, 200, 'the stream had been accepted');
  const error = JSON.parse(sseData(stream.text).at(-1) ?? '{}');
  t.equal(error.type, 'error', 'a final error event');
  t.equal(error.code, 'upstream_bad_response');
  t.match(error.message, 'providers.native.maxEventBytes');
  await upstreamClosed();
  t.ok(written < WRITTEN_BOUND, `the upstream wrote ${written} of ${OFFERED} bytes`);
  await healthy(t);
});
