import http from 'node:http';
import t from 'tap';
import { sseData, sseEvent } from '../../src/http/sse.js';
import { startGateway } from '../helpers/gateway.js';
import { sseChunk, startRawUpstream } from '../helpers/raw-upstream.js';

// The SSE writer: the frames of one upstream read are written at once (one write per batch, corked
// until the tick's promise jobs ran), and nothing waits for more: the first frame leaves before the
// next arrives.

const USER = [{ role: 'user', content: 'hi' }];

/** Counts the writes (res.write, res.end with data) the gateway makes on its chat responses. */
function countWrites(t: { teardown(fn: () => void): void }): { count: number } {
  const counter = { count: 0 };
  const proto = http.ServerResponse.prototype;
  const hadOwn = Object.prototype.hasOwnProperty.call(proto, 'write');
  const write = proto.write;
  proto.write = function (this: http.ServerResponse, ...args: unknown[]) {
    if (this.req?.url === '/v1/chat/completions') counter.count++;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof proto.write;
  t.teardown(() => {
    if (hadOwn) proto.write = write;
    else delete (proto as { write?: unknown }).write;
  });
  return counter;
}

t.test('a burst of events read at once is written to the client in one or two writes, not one per event', async (t) => {
  const events = ['Let', ' me', ' look', ' that', ' up', ' for', ' you', ' now', '.', ' Done'];
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${events.map((content) => sseChunk(content)).join('')}data: [DONE]\n\n`);
  });
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\n`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const writes = countWrites(t);
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: USER, stream: true }) });
  const text = await response.text();
  t.equal(text.split('data: ').length - 1, events.length + 1, 'every event and [DONE]');
  t.ok(writes.count >= 1 && writes.count <= 2, `${writes.count} writes for ${events.length} events and [DONE]`);
});

t.test('the first frame is not held back waiting for the next one', async (t) => {
  let release: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => (release = resolve));
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('first'));
    // The rest only once the client has seen the first frame: a writer that waited for more would hang here.
    void rest.then(() => res.end(`${sseChunk(' second')}data: [DONE]\n\n`));
  });
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\n`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: USER, stream: true }) });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes('first')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  t.match(seen, /"content":"first"/, 'the first frame arrived on its own');
  release();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  t.match(seen, /second[\s\S]*data: \[DONE\]/);
});

t.test('frames: one data line per line of the payload, whatever the line break', async (t) => {
  t.equal(sseData('{"a":1}'), 'data: {"a":1}\n\n');
  t.equal(sseData(''), 'data: \n\n');
  t.equal(sseData('a\nb'), 'data: a\ndata: b\n\n');
  t.equal(sseData('a\r\nb\rc\n'), 'data: a\ndata: b\ndata: c\ndata: \n\n');
  t.equal(sseEvent('done', 'x\ny'), 'event: done\ndata: x\ndata: y\n\n');
});
