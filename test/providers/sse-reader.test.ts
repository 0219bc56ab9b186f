import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import t from 'tap';
import { Pool, type Dispatcher } from 'undici';
import { readSse, readSseBatches } from '../../src/providers/sse-reader.js';

// A body stand-in with the two things readSse uses from undici's body: iterator() and dump()/destroy().
function burstBody(text: string): Dispatcher.ResponseData['body'] {
  const stream = Readable.from([Buffer.from(text)]) as Readable & { dump: () => Promise<void> };
  Object.assign(stream, {
    iterator: () => stream[Symbol.asyncIterator](),
    dump: () => Promise.resolve(),
  });
  return stream as unknown as Dispatcher.ResponseData['body'];
}

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the per-event work of a slow consumer
  }
}

t.test('a burst of events in one chunk lets other work run while it is consumed', async (t) => {
  const events = 400;
  const text = Array.from({ length: events }, (_, i) => `data: {"i":${i}}\n\n`).join('') + 'data: [DONE]\n\n';
  let otherRanAt = -1;
  let seen = 0;
  setImmediate(() => {
    otherRanAt = seen;
  });
  for await (const event of readSse(burstBody(text), (error) => error as Error)) {
    t.equal(JSON.parse(event.data).i, seen, 'events in order');
    seen++;
    busy(0.1); // 400 × 0.1 ms = 40 ms of synchronous work: far more than one slice
  }
  t.equal(seen, events, 'every event, [DONE] not yielded');
  t.ok(otherRanAt > 0 && otherRanAt < events, `another callback ran mid-burst (after event ${otherRanAt})`);
});

t.test('an unterminated last event is still delivered', async (t) => {
  const got: string[] = [];
  for await (const event of readSse(burstBody('data: a\n\ndata: b'), (error) => error as Error)) got.push(event.data);
  t.same(got, ['a', 'b']);
});

t.test('batches: the events of one read in one batch (at most 32), mapped; [DONE] ends them', async (t) => {
  const text = Array.from({ length: 70 }, (_, i) => `data: ${i}\n\n`).join('') + 'data: [DONE]\n\ndata: 99\n\n';
  const sizes: number[] = [];
  const seen: number[] = [];
  for await (const batch of readSseBatches(burstBody(text), (error) => error as Error, (event) => Number(event.data))) {
    sizes.push(batch.length);
    seen.push(...batch);
  }
  t.same(sizes, [32, 32, 6], 'one read of 70 events: three batches');
  t.same(seen, Array.from({ length: 70 }, (_, i) => i), 'in order, nothing after [DONE]');
});

t.test('batches: an event the mapper rejects ends the stream after the events before it', async (t) => {
  const got: string[] = [];
  const body = burstBody('data: a\n\ndata: b\n\ndata: bad\n\ndata: c\n\n');
  await t.rejects(async () => {
    for await (const batch of readSseBatches(body, (error) => error as Error, (event) => {
      if (event.data === 'bad') throw new Error('bad event');
      return event.data;
    })) got.push(...batch);
  }, /bad event/);
  t.same(got, ['a', 'b'], 'what came before the bad event was delivered');
});

t.test('a finished stream longer than 64 KB keeps its upstream connection (the next request reuses it)', async (t) => {
  // ~150 KB of events, then [DONE]: what dump is asked to read must not count the bytes already read.
  const event = `data: {"choices":[{"delta":{"content":"${'x'.repeat(200)}"}}]}\n\n`;
  const body = event.repeat(700) + 'data: [DONE]\n\n';
  let connections = 0;
  // The response ends only once the reader has returned at [DONE] (as an upstream whose last chunk
  // comes a moment later): then the rest is what dump reads.
  let readerDone: () => void = () => undefined;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(body);
    new Promise<void>((resolve) => (readerDone = resolve)).then(() => res.end(), () => undefined);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
  t.teardown(async () => {
    await pool.close();
    server.close();
  });
  for (let i = 0; i < 2; i++) {
    const response = await pool.request({ method: 'GET', path: '/' });
    let events = 0;
    for await (const batch of readSseBatches(response.body, (error) => error as Error, (e) => e)) events += batch.length;
    readerDone();
    t.equal(events, 700, `stream ${i + 1} read whole`);
  }
  t.equal(connections, 1, 'one upstream connection for both streams');
});
