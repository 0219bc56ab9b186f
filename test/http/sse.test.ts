import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import type { FastifyReply } from 'fastify';
import { cutOpenStreams, pingSchedule, sseData, sseEvent, writeSse, writeSseFrom } from '../../src/http/sse.js';
import { errors } from '../../src/errors.js';
import { startGateway } from '../helpers/gateway.js';
import { sseChunk, startRawUpstream } from '../helpers/raw-upstream.js';

// The SSE writer: what is ready in one tick (headers, the frames of one upstream read, [DONE], the
// end) leaves in one socket write, and nothing waits for more: the headers leave before a slow first
// frame, and the first frame before the next arrives.

const USER = [{ role: 'user', content: 'hi' }];

/** A gateway in front of an emulated OpenAI-compatible upstream answering with `handler`; both closed at teardown. */
async function gatewayOver(t: { teardown(fn: () => Promise<void>): void }, handler: Parameters<typeof startRawUpstream>[0], extraYaml = ''): Promise<{ url: string }> {
  const upstream = await startRawUpstream(handler);
  const gw = await startGateway({ yaml: `providers:\n  up:\n    type: openai-compatible\n    baseUrl: ${upstream.baseURL}\n    apiKey: sk-up-1\n${extraYaml}`, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  return gw;
}

/** A streamed chat request through the gateway. */
function streamChat(url: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: USER, stream: true }) });
}

/** Counts the socket writes (one write or writev system call each) the gateway makes on its chat responses. */
function countWrites(t: { teardown(fn: () => void): void }): { count: number } {
  const counter = { count: 0 };
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const originals = { _write: proto._write, _writev: proto._writev };
  for (const name of ['_write', '_writev'] as const) {
    const original = originals[name];
    proto[name] = function (this: net.Socket & { _httpMessage?: http.ServerResponse & { _header?: unknown } }, ...args: unknown[]) {
      // The gateway's responses only (the emulated upstream answers the same path in this process):
      // their head, stored by the time of the first write, carries x-request-id.
      if (this._httpMessage?.req?.url === '/v1/chat/completions' && String(this._httpMessage._header).includes('x-request-id')) counter.count++;
      return original.apply(this, args);
    };
  }
  t.teardown(() => Object.assign(proto, originals));
  return counter;
}

t.test('a burst of events read at once is written to the client in one or two socket writes, not one per event', async (t) => {
  const events = ['Let', ' me', ' look', ' that', ' up', ' for', ' you', ' now', '.', ' Done'];
  const gw = await gatewayOver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${events.map((content) => sseChunk(content)).join('')}data: [DONE]\n\n`);
  });
  const writes = countWrites(t);
  const response = await streamChat(gw.url);
  const text = await response.text();
  t.equal(text.split('data: ').length - 1, events.length + 1, 'every event and [DONE]');
  // One when the upstream's headers and events arrive in one read; two when its events come a read later.
  t.ok(writes.count >= 1 && writes.count <= 2, `${writes.count} socket writes for ${events.length} events and [DONE]`);
});

t.test('what is ready in one tick (headers, frames, the last frame, the end) is one socket write', async (t) => {
  const frames = ['a', 'b', 'c', 'd', 'e'];
  let writes = -1;
  const server = http.createServer((req, res) => {
    const socket = res.socket as net.Socket & Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    writes = 0;
    for (const name of ['_write', '_writev'] as const) {
      const original = socket[name];
      socket[name] = (...args: unknown[]) => {
        writes++;
        return original.apply(socket, args);
      };
    }
    async function* ready(): AsyncGenerator<string> {
      yield* frames; // every item already there: nothing waits for the network
    }
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSseFrom(reply, ready(), sseData, { headers: {}, abort: new AbortController(), errorFrame: () => '', last: 'data: [DONE]\n\n' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  t.equal(text, `${frames.map((frame) => `data: ${frame}\n\n`).join('')}data: [DONE]\n\n`);
  t.equal(writes, 1, `${writes} socket writes`);
});

t.test('the first frame is not held back waiting for the next one', async (t) => {
  let release: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => (release = resolve));
  const gw = await gatewayOver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('first'));
    // The rest only once the client has seen the first frame: a writer that waited for more would hang here.
    void rest.then(() => res.end(`${sseChunk(' second')}data: [DONE]\n\n`));
  });
  const response = await streamChat(gw.url);
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

t.test('the headers leave at once when the first frame is slow', async (t) => {
  let release: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => (release = resolve));
  const gw = await gatewayOver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    // No event until the client has its response headers: a writer that held them for the first frame would hang.
    void rest.then(() => res.end(`${sseChunk('late')}data: [DONE]\n\n`));
    // No idle ping either: a ping would bring the headers with it (after 15 s by default) and hide a writer that held them.
  }, 'server:\n  ssePingMs: 0\n');
  const response = await streamChat(gw.url);
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/event-stream/);
  release();
  t.match(await response.text(), /"content":"late"[\s\S]*data: \[DONE\]/);
});

t.test('frames: one data line per line of the payload, whatever the line break', async (t) => {
  t.equal(sseData('{"a":1}'), 'data: {"a":1}\n\n');
  t.equal(sseData(''), 'data: \n\n');
  t.equal(sseData('a\nb'), 'data: a\ndata: b\n\n');
  t.equal(sseData('a\r\nb\rc\n'), 'data: a\ndata: b\ndata: c\ndata: \n\n');
  t.equal(sseEvent('done', 'x\ny'), 'event: done\ndata: x\ndata: y\n\n');
});

// Idle pings come from one interval per ping period shared by all streams (not a timer per stream):
// a stream that ends leaves the others watched, and each idle stream gets its own pings.
t.test('idle streams each get pings, and another stream ending does not stop them', async (t) => {
  const releases: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    async function* items(): AsyncGenerator<string> {
      yield 'first';
      if (req.url === '/quick') return;
      await new Promise<void>((resolve) => {
        releases.push(resolve);
        setTimeout(resolve, 5000).unref(); // a failing run ends instead of hanging
      });
      yield 'last';
    }
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSseFrom(reply, items(), sseData, { headers: {}, abort: new AbortController(), errorFrame: () => '', last: 'data: [DONE]\n\n', pingMs: 30 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  /** Reads a response until its text has a ping (`rest` reads on to its end). */
  const untilPing = async (response: Response): Promise<{ text: string; rest: () => Promise<string> }> => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const read = async (stop: (text: string) => boolean): Promise<string> => {
      let got = '';
      while (!stop(got)) {
        const { done, value } = await reader.read();
        if (done) break;
        got += decoder.decode(value, { stream: true });
      }
      return got;
    };
    const text = await read((got) => got.includes(': ping\n\n'));
    return { text, rest: () => read(() => false) };
  };
  const idle = await Promise.all([fetch(`${url}/idle`), fetch(`${url}/idle`)]);
  t.equal(await (await fetch(`${url}/quick`)).text(), 'data: first\n\ndata: [DONE]\n\n', 'a stream that ends at once gets no ping');
  const reads = await Promise.all(idle.map(untilPing));
  for (const release of releases) release();
  for (const { text } of reads) t.match(text, /^data: first\n\n(: ping\n\n)+$/, 'an idle stream gets pings');
  const rest = await Promise.all(reads.map(async ({ rest }) => rest()));
  for (const text of rest) t.match(text, /data: last\n\ndata: \[DONE\]\n\n$/, 'and its frames after them');
});

// What an open stream holds: the writer's listener on the response is one function shared by all
// streams (it was a closure made per stream, with a drain callback, a flush callback and a ping timer).
t.test('the close listener a writer puts on its response is the same function for every stream', async (t) => {
  const added: Array<Array<(...args: unknown[]) => void>> = [];
  const releases: Array<() => void> = [];
  const server = http.createServer((_req, res) => {
    async function* items(): AsyncGenerator<string> {
      yield 'first';
      await new Promise<void>((resolve) => releases.push(resolve));
    }
    const before = res.listeners('close');
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSseFrom(reply, items(), sseData, { headers: {}, abort: new AbortController(), errorFrame: () => '', pingMs: 15_000 });
    added.push(res.listeners('close').filter((listener) => !before.includes(listener)) as Array<(...args: unknown[]) => void>);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const responses = await Promise.all([fetch(`http://127.0.0.1:${port}/`), fetch(`http://127.0.0.1:${port}/`)]);
  t.equal(added.length, 2);
  t.equal(added[0].length, 1, 'one close listener per stream');
  t.ok(added[0][0] === added[1][0], 'the same function on both responses');
  for (const release of releases) release();
  await Promise.all(responses.map(async (response) => response.text()));
});

// At a moderate load streams seldom overlap: the idle-ping interval (and its list) must not be made
// and dropped per stream (a timer, a Set and a Map entry each time: old-generation garbage that
// the next major GC pays for). It stops only when it runs and finds no stream, and a stream that
// comes after that starts it again.
t.test('streams one after another share one idle-ping interval, which restarts after it stopped', async (t) => {
  const started: number[] = [];
  let onCleared: (() => void) | undefined;
  const { setInterval: realSet, clearInterval: realClear } = globalThis;
  globalThis.setInterval = ((...args: Parameters<typeof realSet>) => {
    started.push(Number(args[1]));
    return realSet(...args);
  }) as typeof realSet;
  globalThis.clearInterval = ((timer: Parameters<typeof realClear>[0]) => {
    realClear(timer);
    onCleared?.();
  }) as typeof realClear;
  t.teardown(() => {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  });
  // A period no other test uses, with checks 12 s apart: the five streams below start and end well
  // within one check period even on a loaded machine, so no check finds the list empty in between.
  const pingMs = Number(process.hrtime.bigint() % 1000n) + 60_000;
  const server = http.createServer((req, res) => {
    async function* items(): AsyncGenerator<string> {
      yield 'first';
      if (req.url === '/short-idle') await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const period = req.url?.startsWith('/short') ? 40 : pingMs;
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSseFrom(reply, items(), sseData, { headers: {}, abort: new AbortController(), errorFrame: () => '', pingMs: period });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  for (let i = 0; i < 5; i++) t.equal(await (await fetch(`http://127.0.0.1:${port}/quick`)).text(), 'data: first\n\n');
  const every = pingSchedule(pingMs).checkEveryMs;
  t.same(
    started.filter((ms) => ms === every),
    [every],
    'one interval for five streams in a row',
  );
  // A short period: the interval finds no stream and stops; the next stream restarts it and is pinged.
  const cleared = new Promise<void>((resolve) => (onCleared = resolve));
  t.equal(await (await fetch(`http://127.0.0.1:${port}/short-quick`)).text(), 'data: first\n\n');
  await cleared;
  onCleared = undefined;
  const text = await (await fetch(`http://127.0.0.1:${port}/short-idle`)).text();
  t.match(text, /^data: first\n\n(: ping\n\n)+$/, 'a stream after the stop still gets pings');
  t.equal(started.filter((ms) => ms === pingSchedule(40).checkEveryMs).length, 2, 'the short period started once again after it stopped');
});

// What an open stream holds: while the writer waits for the upstream's next read, the last item (a
// batch of chunks) and its frames were kept by the suspended writer's variables until the next one came.
t.test('a writer waiting for the next item does not keep the last one', async (t) => {
  const { settledHeap } = await import('../helpers/heap.js');
  let item: WeakRef<object> | undefined;
  let release: () => void = () => undefined;
  let written: () => void = () => undefined;
  const firstWritten = new Promise<void>((resolve) => (written = resolve));
  const server = http.createServer((_req, res) => {
    let reads = 0;
    // Hand-written, so that nothing but the writer could keep the item (a generator would keep it in its own frame).
    const items: AsyncIterable<{ text: string }> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (reads++ > 0) return new Promise<IteratorResult<{ text: string }>>((resolve) => (release = () => resolve({ done: true, value: undefined })));
          const value = { text: `first ${'x'.repeat(64)}` };
          item = new WeakRef(value);
          return Promise.resolve({ done: false, value });
        },
      }),
    };
    const render = (value: { text: string }): string => {
      setImmediate(written);
      return sseData(value.text);
    };
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSseFrom(reply, items, render, { headers: {}, abort: new AbortController(), errorFrame: () => '', last: 'data: [DONE]\n\n' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const response = fetch(`http://127.0.0.1:${port}/`);
  await firstWritten;
  await settledHeap();
  t.equal(item?.deref(), undefined, 'the last item was collected while the writer waits');
  release();
  t.match(await (await response).text(), /^data: first x+\n\ndata: \[DONE\]\n\n$/);
});

// server.ssePingMs promises a ping after that long idle at the latest: with the checks of the
// shared interval, the longest silence (a stream that went quiet just after a check) plus one check
// period of slack for a late timer stays within it, for every period.
t.test('the ping schedule never leaves a stream silent longer than ssePingMs', async (t) => {
  for (const pingMs of [30, 1_000, 15_000, 17_000, 60_000]) {
    const { checkEveryMs, pingAfterIdleMs } = pingSchedule(pingMs);
    let longest = 0;
    // The stream's last write at every phase between two checks (checks at k × checkEveryMs).
    for (let phase = 0; phase < checkEveryMs; phase += Math.max(1, Math.floor(checkEveryMs / 50))) {
      let check = checkEveryMs;
      while (check - phase < pingAfterIdleMs) check += checkEveryMs;
      longest = Math.max(longest, check - phase);
    }
    t.ok(longest + checkEveryMs <= pingMs, `ssePingMs ${pingMs}: silent at most ${longest} ms, +${checkEveryMs} ms for a late timer`);
    t.ok(pingAfterIdleMs >= pingMs / 2, `ssePingMs ${pingMs}: not pinged before ${pingAfterIdleMs} ms of silence`);
  }
});

// At the end of the shutdown grace period, a stream still open gets its route's terminal error frame
// and its upstream is stopped: the client never sees an answer cut without an end.
t.test('cutOpenStreams ends each open stream with its error frame and stops its upstream', async (t) => {
  const aborts: string[] = [];
  let wrote: () => void = () => undefined;
  const firstWritten = new Promise<void>((resolve) => (wrote = resolve));
  let count = 0;
  const server = http.createServer((req, res) => {
    const route = String(req.url);
    async function* endless(signal: AbortSignal): AsyncGenerator<string> {
      yield `data: ${route}\n\n`;
      if (++count === 2) wrote();
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => aborts.push(route));
    const reply = { hijack: () => undefined, raw: res, request: { id: 'req-1' } } as unknown as FastifyReply;
    void writeSse(reply, endless(controller.signal), { headers: {}, abort: controller, errorFrame: (error) => `event: error\ndata: ${JSON.stringify({ route, code: error.code })}\n\n` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const texts = ['/a', '/b'].map(async (path) => (await fetch(`http://127.0.0.1:${port}${path}`)).text());
  await firstWritten;
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(cutOpenStreams(errors.shuttingDown()), 2, 'both open streams');
  for (const [index, path] of ['/a', '/b'].entries()) {
    t.equal(await texts[index], `data: ${path}\n\nevent: error\ndata: {"route":"${path}","code":"shutting_down"}\n\n`, `${path}: its frames, then the error frame, then the end`);
  }
  t.same(aborts.sort(), ['/a', '/b'], 'each upstream stopped');
  t.equal(cutOpenStreams(errors.shuttingDown()), 0, 'ended streams leave the list');
});

// Bounded in bytes everywhere: an upstream stream that never ends (each event small) is cut at
// providers.<name>.maxStreamBytes with the terminal error event, the content before it delivered.
t.test('an endless upstream stream ends at maxStreamBytes with an error event', async (t) => {
  let written = 0;
  const gw = await gatewayOver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Paced (one event a millisecond): the reader sees reads before the one that crosses the cap.
    const timer = setInterval(() => {
      if (res.destroyed || written++ >= 2_000) return clearInterval(timer);
      res.write(sseChunk('word '));
    }, 1);
  }, '    maxStreamBytes: 16384\n');
  const text = await (await streamChat(gw.url)).text();
  t.match(text, /"content":"word "/, 'what came before the cap');
  t.match(text, /a stream longer than 16384 bytes \(providers\.up\.maxStreamBytes\)/);
  t.match(text, /"code":"upstream_bad_response"/);
  t.ok(text.length < 40_000, `the client got ${text.length} characters, not the whole upstream stream`);
});
