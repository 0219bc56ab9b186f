import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import t from 'tap';
import { settledHeap } from '../helpers/heap.js';
import { Pool, type Dispatcher } from 'undici';
import { readableSource } from '../../src/providers/byte-source.js';
import { readSse as readSseFrom, readSseBatches as readSseBatchesFrom, type SseEvent, type SseLimits } from '../../src/providers/sse-reader.js';

const LIMITS: SseLimits = { name: 'test' };

// The reader takes a ByteSource; these tests drive it with Node streams (undici's request() body,
// stand-ins), adapted at this edge.
const readSse = (body: Readable, mapError: (error: unknown) => Error, limits: SseLimits): AsyncGenerator<SseEvent> => readSseFrom(readableSource(body), mapError, limits);
const readSseBatches = <T>(body: Readable, mapError: (error: unknown) => Error, map: (event: SseEvent) => T, limits: SseLimits): AsyncIterableIterator<T[]> =>
  readSseBatchesFrom(readableSource(body), mapError, map, limits);

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
  for await (const event of readSse(burstBody(text), (error) => error as Error, LIMITS)) {
    t.equal(JSON.parse(event.data).i, seen, 'events in order');
    seen++;
    busy(0.1); // 400 × 0.1 ms = 40 ms of synchronous work: far more than one slice
  }
  t.equal(seen, events, 'every event, [DONE] not yielded');
  t.ok(otherRanAt > 0 && otherRanAt < events, `another callback ran mid-burst (after event ${otherRanAt})`);
});

t.test('an unterminated last event is still delivered', async (t) => {
  const got: string[] = [];
  for await (const event of readSse(burstBody('data: a\n\ndata: b'), (error) => error as Error, LIMITS)) got.push(event.data);
  t.same(got, ['a', 'b']);
});

t.test('batches: the events of one read in one batch (at most 32), mapped; [DONE] ends them', async (t) => {
  const text = Array.from({ length: 70 }, (_, i) => `data: ${i}\n\n`).join('') + 'data: [DONE]\n\ndata: 99\n\n';
  const sizes: number[] = [];
  const seen: number[] = [];
  for await (const batch of readSseBatches(burstBody(text), (error) => error as Error, (event) => Number(event.data), LIMITS)) {
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
    }, LIMITS)) got.push(...batch);
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
    for await (const batch of readSseBatches(response.body, (error) => error as Error, (e) => e, LIMITS)) events += batch.length;
    readerDone();
    t.equal(events, 700, `stream ${i + 1} read whole`);
  }
  t.equal(connections, 1, 'one upstream connection for both streams');
});

/** A body of many network reads, each pulled on demand; `pulled` counts the bytes the reader asked for. */
function chunkedBody(chunks: Iterable<string>): { body: Dispatcher.ResponseData['body']; pulled: () => number } {
  let bytes = 0;
  const counted = function* () {
    for (const chunk of chunks) {
      bytes += Buffer.byteLength(chunk);
      yield Buffer.from(chunk);
    }
  };
  // highWaterMark 1: the stream reads ahead by at most one chunk, so `pulled` is what the reader took.
  const stream = Readable.from(counted(), { highWaterMark: 1 }) as Readable & { dump: () => Promise<void> };
  Object.assign(stream, { iterator: () => stream[Symbol.asyncIterator](), dump: () => Promise.resolve() });
  return { body: stream as unknown as Dispatcher.ResponseData['body'], pulled: () => bytes };
}

function* repeat(text: string, times: number): Generator<string> {
  for (let i = 0; i < times; i++) yield text;
}

async function readAll(body: Dispatcher.ResponseData['body'], limits: SseLimits): Promise<{ got: string[]; error: unknown }> {
  const got: string[] = [];
  try {
    for await (const event of readSse(body, (error) => error as Error, limits)) got.push(event.data);
  } catch (error) {
    return { got, error };
  }
  return { got, error: undefined };
}

const CAP = 4096;
const CHUNK = 'x'.repeat(512);
/** Reads past a cap that are still bounded: the stream reads one ahead, and each time the reader
 * yields to the event loop (after 8 ms of work, more often on a loaded machine) it may pull again. */
const READS_PAST_CAP = 8;

t.test('a line that never ends: stops near the cap, the events before it delivered, then a 502', async (t) => {
  // 10 MB on offer; the reader must stop after about CAP bytes of the endless line.
  const { body, pulled } = chunkedBody([`data: a\n\ndata: b\n\ndata: ${CHUNK}`, ...repeat(CHUNK, 20_000)]);
  const { got, error } = await readAll(body, { name: 'up', maxEventBytes: CAP });
  t.same(got, ['a', 'b'], 'what came before the oversized event');
  t.match(error, { status: 502, code: 'upstream_bad_response', message: `Provider 'up' sent a response toolgate could not read: a stream event larger than ${CAP} bytes (providers.up.maxEventBytes).` });
  t.ok(pulled() <= CAP + READS_PAST_CAP * CHUNK.length, `read ${pulled()} bytes of 10 MB: the cap and a few reads more`);
  t.ok((body as unknown as Readable).destroyed, 'the body is destroyed (its socket is not reused)');
});

t.test('an event that never gets its blank line (endless data: lines) hits the same cap', async (t) => {
  const line = `data: ${'y'.repeat(100)}\n`;
  const { body, pulled } = chunkedBody(['data: first\n\n', ...repeat(line, 100_000)]);
  const { got, error } = await readAll(body, { name: 'up', maxEventBytes: CAP });
  t.same(got, ['first']);
  t.match(error, { status: 502, code: 'upstream_bad_response', message: /a stream event larger than 4096 bytes/ });
  t.ok(pulled() <= CAP + READS_PAST_CAP * line.length, `read ${pulled()} bytes of 10 MB`);
});

t.test('the cap is per event: a long stream of events each under it passes, and so does one event just under it', async (t) => {
  const big = 'z'.repeat(CAP - 100);
  // The big event comes in 512-byte reads; the whole stream is ~1 MB, far over the cap.
  const text = `data: ${big}\n\n`;
  const reads = [...repeat(`data: ${'s'.repeat(200)}\n\n`, 5_000), ...text.match(/[^]{1,512}/g)!, 'data: [DONE]\n\n'];
  const { got, error } = await readAll(chunkedBody(reads).body, { name: 'up', maxEventBytes: CAP });
  t.equal(error, undefined);
  t.equal(got.length, 5_001);
  t.equal(got[5_000], big);
});

t.test('maxStreamBytes bounds the whole body: events each small, past the total the stream ends with a 502', async (t) => {
  const event = `data: ${'s'.repeat(200)}\n\n`;
  const { body, pulled } = chunkedBody([...repeat(event, 100_000)]); // 20 MB on offer
  const { got, error } = await readAll(body, { name: 'up', maxStreamBytes: 64 * 1024 });
  t.ok(got.length > 0 && got.length <= Math.ceil((64 * 1024) / event.length), `${got.length} events before the cap`);
  t.match(error, { status: 502, code: 'upstream_bad_response', message: 'a stream longer than 65536 bytes (providers.up.maxStreamBytes)' });
  t.ok(pulled() <= 64 * 1024 + READS_PAST_CAP * event.length, `read ${pulled()} bytes of 20 MB`);
  const under = await readAll(chunkedBody([...repeat(event, 100), 'data: [DONE]\n\n']).body, { name: 'up', maxStreamBytes: 64 * 1024 });
  t.equal(under.error, undefined, 'a stream under the cap is untouched');
  t.equal(under.got.length, 100);
});

t.test('no maxEventBytes: the config default applies (32 MiB), not unbounded', async (t) => {
  // 33 MiB of one line in 1 MiB reads; old code read it all and flushed it as one event.
  const mib = 'w'.repeat(1024 * 1024);
  const { body, pulled } = chunkedBody(['data: ', ...repeat(mib, 40)]);
  const { got, error } = await readAll(body, { name: 'up' });
  t.same(got, []);
  t.match(error, { status: 502, message: /larger than 33554432 bytes/ });
  t.ok(pulled() <= 35 * mib.length, `read ${pulled()} bytes`);
});

// A stream spends most of its life waiting for the upstream's next read, and a suspended generator
// keeps its locals: the reader kept the whole decoded previous read (its text, and the events that
// are slices of it) until the next one came. Counted in heap bytes after a full GC, not timed.
t.test('a reader waiting for the next read does not keep the previous one', async (t) => {
  const readers = 50;
  // Long events (64 KB in the read), so what a reader itself holds (stream, parser, decoder) is small beside it.
  const event = (i: number): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `${i} `.padEnd(1600, 'x') } }] })}\n\n`;
  const read = Array.from({ length: 40 }, (_, i) => event(i)).join('');
  // Earlier tests' garbage (a 32 MiB read) is collected first: the heap is compared at three points.
  const before = await settledHeap();
  let waiting: Array<{ stream: Readable; next: Promise<unknown> }> = [];
  for (let r = 0; r < readers; r++) {
    const stream = new Readable({ read() {} }) as Readable & { dump: () => Promise<void> };
    Object.assign(stream, { iterator: () => stream[Symbol.asyncIterator](), dump: () => Promise.resolve() });
    stream.push(Buffer.from(read));
    const reader = readSseBatches(stream as unknown as Dispatcher.ResponseData['body'], (error) => error as Error, (e) => e.data.length, LIMITS);
    let first = await reader.next();
    while (!first.done && Array.isArray(first.value) && first.value.length === 32) first = await reader.next();
    // The events of the first read are consumed; the reader now waits for a second read.
    waiting.push({ stream, next: reader.next() });
  }
  const withReaders = await settledHeap();
  for (const { stream, next } of waiting) {
    stream.push(null);
    await next;
  }
  waiting = [];
  const after = await settledHeap();
  const perReader = (withReaders - Math.max(before, after)) / readers;
  t.ok(perReader < read.length / 4, `${Math.round(perReader)} bytes kept per waiting reader (a read is ${read.length} characters)`);
});

// A stream spends its life waiting for the upstream's next read. The reader was an async generator
// over Node's async iterator of the body: two generators, their frames, and the end-of-stream
// listeners Node's iterator puts on the body (closures made per stream). It reads the body itself
// now, with listeners shared by every stream. Counted in heap bytes after a full GC, not timed:
// beside its body, a waiting reader held 5.3–5.5 KB before and 4.2–4.3 KB now (Node 20 and 24, as
// these tests run it; built, 4.3 → 2.6 KB).
t.test('a reader waiting for the next read holds little beyond its body, and no listener made for it', async (t) => {
  const readers = 2000;
  const event = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
  const body = (): Readable & { dump: () => Promise<void> } => {
    const stream = new Readable({ read() {} }) as Readable & { dump: () => Promise<void> };
    Object.assign(stream, { iterator: () => stream[Symbol.asyncIterator](), dump: () => Promise.resolve() });
    return stream;
  };
  const open = async (): Promise<Array<{ stream: Readable; next: Promise<unknown> }>> => {
    const waiting: Array<{ stream: Readable; next: Promise<unknown> }> = [];
    for (let r = 0; r < readers; r++) {
      const stream = body();
      stream.push(Buffer.from(event));
      const reader = readSseBatches(stream as unknown as Dispatcher.ResponseData['body'], (error) => error as Error, (e) => e.data.length, LIMITS);
      await reader.next();
      waiting.push({ stream, next: reader.next() }); // waits for a second read
    }
    return waiting;
  };
  await open().then(async (warm) => Promise.all(warm.map(({ stream, next }) => (stream.push(null), next))));
  const before = await settledHeap(4);
  let waiting = await open();
  const withReaders = await settledHeap(4);
  const [first, second] = waiting;
  for (const name of ['readable', 'end', 'error', 'close']) {
    const [a, b] = [first.stream.listeners(name), second.stream.listeners(name)];
    t.ok(a.length > 0 && a.length === b.length && a.every((listener, i) => listener === b[i]), `the '${name}' listeners of two streams are the same functions`);
  }
  // The bodies alone, the way the reader leaves them between reads.
  let bare: Readable[] = [];
  for (let r = 0; r < readers; r++) {
    const stream = body();
    stream.push(Buffer.from(event));
    stream.read();
    bare.push(stream);
  }
  const withBodies = await settledHeap(4);
  for (const { stream, next } of waiting) {
    stream.push(null);
    await next;
  }
  waiting = [];
  bare = [];
  const perReader = (withReaders - before) / readers;
  const perBody = (withBodies - withReaders) / readers;
  t.ok(perReader - perBody < 4800, `${Math.round(perReader - perBody)} bytes per waiting reader beside its body (${Math.round(perReader)} with it)`);
});

// A read of at most 32 events is handed over as its own array, its events replaced by what the mapper
// made of them (no second array per read). The same events, in the same order, must come out for any
// split of the body into reads, with [DONE] or a rejected event anywhere in a read.
t.test('batches over any split into reads: every event before [DONE] or a rejected one, in order, nothing after', async (t) => {
  let seed = 11;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 300; round++) {
    const count = 1 + random(80);
    const data = Array.from({ length: count }, (_, i) => `e${i}`);
    const stop = random(3);
    const at = random(count);
    if (stop === 1) data[at] = '[DONE]';
    if (stop === 2) data[at] = 'bad';
    const text = data.map((d) => `data: ${d}\n\n`).join('');
    // Reads cut at random places (inside events too).
    const reads: Buffer[] = [];
    for (let from = 0; from < text.length; ) {
      const size = 1 + random(random(2) === 0 ? 40 : 400);
      reads.push(Buffer.from(text.slice(from, from + size)));
      from += size;
    }
    const stream = Readable.from(reads) as Readable & { dump: () => Promise<void> };
    Object.assign(stream, { iterator: () => stream[Symbol.asyncIterator](), dump: () => Promise.resolve() });
    const got: string[] = [];
    let error: unknown;
    try {
      for await (const batch of readSseBatches(stream as unknown as Dispatcher.ResponseData['body'], (e) => e as Error, (event) => {
        if (event.data === 'bad') throw new Error('bad event');
        return `mapped ${event.data}`;
      }, LIMITS)) {
        t.ok(batch.length > 0 && batch.length <= 32, 'a batch of 1 to 32');
        got.push(...batch);
      }
    } catch (caught) {
      error = caught;
    }
    const end = stop === 0 ? count : at;
    t.same(got, data.slice(0, end).map((d) => `mapped ${d}`), `round ${round}: ${count} events, ${['no stop', '[DONE]', 'a bad event'][stop]} at ${at}, ${reads.length} reads`);
    t.equal(error instanceof Error ? error.message : error, stop === 2 ? 'bad event' : undefined);
  }
});
