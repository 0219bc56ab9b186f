import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { Dispatcher } from 'undici';
import { ClientAbort } from '../../src/client-abort.js';
import { readSseBatches } from '../../src/providers/sse-reader.js';
import { ERROR_BODY_PREFIX_BYTES, readErrorText } from '../../src/providers/upstream-body.js';
import { UpstreamClient } from '../../src/providers/upstream-http.js';
import type { ProviderSettings } from '../../src/providers/types.js';
import { testUpstreamClient } from '../helpers/test-upstream-client.js';

// A streamed answer read straight off undici's dispatcher (answer-stream.ts), through the client
// and the SSE reader as the adapters use them: backpressure, the client's abort, the idle timeout,
// [DONE] with a small or a big rest, an error status's capped prefix. No timing: each test waits
// for an event (a pause, a close, the reader's end), never for a duration.

interface Upstream {
  client: UpstreamClient;
  /** How many different connections the requests so far came on (undici's pool may open one more after a closed one, unasked). */
  connections: () => number;
  /** Resolves when the latest response's connection closed or it finished. */
  closed: () => Promise<void>;
}

async function upstream(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void, settings: Partial<ProviderSettings> = {}): Promise<Upstream> {
  const sockets = new Set<unknown>();
  let closed = Promise.resolve();
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    req.resume();
    closed = new Promise((resolve) => res.on('close', resolve));
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = testUpstreamClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, settings);
  t.teardown(async () => {
    await client.close();
    server.closeAllConnections();
    server.close();
  });
  return { client, connections: () => sockets.size, closed: () => closed };
}

const SSE = { 'content-type': 'text/event-stream' };
const event = (i: number): string => `data: {"i":${i},"pad":"${'p'.repeat(200)}"}\n\n`;

function read(client: UpstreamClient, signal = new ClientAbort().signal) {
  return client.post('/chat/completions', '{}', {}, signal).then((response) => ({
    response,
    batches: readSseBatches(response.body, (error) => client.mapError(error, 'body'), (e) => (JSON.parse(e.data) as { i: number }).i, { name: 'up' }),
  }));
}

/** A pool that hands undici's handler calls through, recording how the handler paces the upstream. */
function spying(client: UpstreamClient): { paused: () => Promise<void>; delivered: () => number; violations: () => number } {
  const pool = (client as unknown as { pool: Dispatcher }).pool;
  const dispatch = pool.dispatch.bind(pool);
  let delivered = 0;
  let waitingForResume = false;
  let violations = 0;
  let onPause: () => void = () => undefined;
  const paused = new Promise<void>((resolve) => (onPause = resolve));
  pool.dispatch = (options, handler) => {
    const legacy = handler as unknown as { onHeaders: (...args: unknown[]) => boolean; onData: (chunk: Buffer) => boolean };
    const onHeaders = legacy.onHeaders.bind(legacy);
    const onData = legacy.onData.bind(legacy);
    legacy.onHeaders = (status, headers, resume, text) =>
      onHeaders(status, headers, () => {
        waitingForResume = false;
        (resume as () => void)();
      }, text);
    legacy.onData = (chunk) => {
      if (waitingForResume) violations++;
      delivered += chunk.length;
      const more = onData(chunk);
      if (!more) {
        waitingForResume = true;
        onPause();
      }
      return more;
    };
    return dispatch(options, handler);
  };
  return { paused: () => paused, delivered: () => delivered, violations: () => violations };
}

t.test('a consumer that does not read pauses the upstream at about 64 KB unread; reading resumes it, every event arrives', async (t) => {
  const total = 150_000; // ~33 MB of events on offer: far more than the sockets buffer
  let finished = false;
  let onFinish: () => void = () => undefined;
  const serverDone = new Promise<void>((resolve) => (onFinish = resolve));
  const { client } = await upstream(t, (_req, res) => {
    res.writeHead(200, SSE);
    let i = 0;
    const next = (): void => {
      while (i < total) if (!res.write(event(i++))) return void res.once('drain', next);
      res.end('data: [DONE]\n\n', () => {
        finished = true;
        onFinish();
      });
    };
    next();
  });
  const spy = spying(client);
  const { batches } = await read(client);
  // Nothing is read: the handler must pause the upstream before the server has written it all.
  await Promise.race([spy.paused(), serverDone]);
  t.notOk(finished, 'the upstream could not write everything to a consumer that did not read');
  t.ok(spy.delivered() < 64 * 1024 + 65_536, `${spy.delivered()} bytes reached the handler before it paused`);
  const seen: number[] = [];
  for await (const batch of batches) for (const i of batch) seen.push(i);
  t.equal(seen.length, total, 'every event, once resumed');
  t.ok(seen.every((value, at) => value === at), 'in order');
  t.equal(spy.violations(), 0, 'no data while paused');
});

t.test("the client's abort mid-stream cancels the upstream request: a 499, the connection closed", async (t) => {
  const { client, closed } = await upstream(t, (_req, res) => {
    res.writeHead(200, SSE);
    res.write(event(0)); // then nothing: only the abort ends this stream
  }, { streamIdleTimeoutMs: 30_000 });
  const abort = new ClientAbort();
  const { batches } = await read(client, abort.signal);
  t.same((await batches.next()).value, [0]);
  const next = batches.next();
  abort.abort();
  await t.rejects(next, { status: 499, code: 'client_closed_request' });
  await closed();
  t.pass('the upstream connection closed');
});

t.test('an upstream that stalls mid-stream: a 504 stream idle after the events before it', async (t) => {
  const { client, closed } = await upstream(t, (_req, res) => {
    res.writeHead(200, SSE);
    res.write(event(0) + event(1));
  }, { streamIdleTimeoutMs: 200 });
  const { batches } = await read(client);
  t.same((await batches.next()).value, [0, 1]);
  await t.rejects(batches.next(), { status: 504, code: 'stream_idle_timeout' });
  await closed();
});

t.test('an error before the status is a 502 unreachable; a connection lost mid-body a 502 bad response', async (t) => {
  const early = await upstream(t, (req) => req.socket.destroy());
  await t.rejects(read(early.client), { status: 502, code: 'upstream_unreachable' });
  const late = await upstream(t, (_req, res) => {
    res.writeHead(200, SSE);
    res.write(event(0), () => setImmediate(() => res.destroy()));
  });
  const { batches } = await read(late.client);
  t.same((await batches.next()).value, [0]);
  await t.rejects(batches.next(), { status: 502, code: 'upstream_bad_response', message: /connection lost mid-response/ });
});

/** `count` events, [DONE], then (once the reader has stopped at [DONE]) `tail` bytes more and the end. */
function doneThenTail(count: number, tail: number): { handler: (req: IncomingMessage, res: ServerResponse) => void; readerDone: () => void } {
  let release: () => void = () => undefined;
  return {
    handler: (_req, res) => {
      res.writeHead(200, SSE);
      res.write(Array.from({ length: count }, (_, i) => event(i)).join('') + 'data: [DONE]\n\n');
      new Promise<void>((resolve) => (release = resolve)).then(() => res.end(': tail\n' + 'x'.repeat(tail)), () => undefined);
    },
    readerDone: () => release(),
  };
}

async function readTwice(t: Test, tail: number, count = 2): Promise<number> {
  const served = doneThenTail(count, tail);
  const { client, connections, closed } = await upstream(t, served.handler);
  for (let round = 0; round < 2; round++) {
    const { batches } = await read(client);
    const seen: number[] = [];
    for await (const batch of batches) seen.push(...batch);
    t.same(seen, Array.from({ length: count }, (_, i) => i), `stream ${round + 1}: the events before [DONE]`);
    served.readerDone();
    await closed();
  }
  return connections();
}

t.test('[DONE] with a small rest after it: the rest is discarded, the connection reused', async (t) => {
  t.equal(await readTwice(t, 10_000), 1, 'both streams on one upstream connection');
  // ~150 KB read before [DONE]: what may be discarded does not count what was read.
  t.equal(await readTwice(t, 10_000, 700), 1, 'and so do two long streams');
});

t.test('[DONE] with a big rest after it: the request is cut, the connection not reused', async (t) => {
  t.equal(await readTwice(t, 4 * 1024 * 1024), 2, 'the second stream on a new connection');
});

t.test('a consumer that stops early (return()) aborts the upstream request', async (t) => {
  const { client, closed } = await upstream(t, (_req, res) => {
    res.writeHead(200, SSE);
    res.write(event(0)); // the stream goes on (it never ends by itself)
  }, { streamIdleTimeoutMs: 30_000 });
  const { batches } = await read(client);
  t.same((await batches.next()).value, [0]);
  await batches.return?.();
  await closed();
  t.pass('the upstream connection closed');
});

t.test('an error status with a long body: only its first 64 KiB are read, then the request is cut', async (t) => {
  let written = 0;
  const { client, closed } = await upstream(t, (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const next = (): void => {
      while (written < 256 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', next);
      }
      if (!res.destroyed) res.end();
    };
    next();
  });
  const response = await client.post('/chat/completions', '{}', {}, new ClientAbort().signal);
  t.equal(response.status, 503);
  t.equal(response.headers['retry-after'], '7', 'an error status has all its headers');
  t.equal(Buffer.byteLength(await readErrorText(response.body)), ERROR_BODY_PREFIX_BYTES);
  t.ok(response.body.ended instanceof Error, 'the request was cancelled, not left paused');
  await closed();
  t.ok(written < 32 * 1024 * 1024, `the upstream wrote ${written} bytes of 256 MB`);
});
