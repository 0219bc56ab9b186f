import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { Pool } from 'undici';
import { ERROR_BODY_PREFIX_BYTES, readAnswerText, readErrorText } from '../../src/providers/upstream-body.js';

// Whole-body reads of upstream answers stop at a byte cap; past it the body is destroyed, so the
// upstream connection is closed, not pooled mid-body.

const CHUNK = Buffer.alloc(16 * 1024, 'x');

interface Served {
  pool: Pool;
  /** Bytes the server got written before its response finished or the connection closed. */
  written: () => number;
  connections: () => number;
  /** Resolves when the latest response finished or its connection closed. */
  closed: () => Promise<void>;
}

/** One server; `handler` answers each request. Writes go through `pump`, which counts them. */
async function serve(t: Test, handler: (res: ServerResponse, pump: (total: number) => void) => void): Promise<Served> {
  let written = 0;
  let connections = 0;
  let closed = Promise.resolve();
  const server = createServer((_req, res) => {
    closed = new Promise((resolve) => res.on('close', resolve));
    const pump = (total: number): void => {
      // Writes with backpressure until `total` bytes or the client went away.
      const next = (): void => {
        while (written < total && !res.destroyed) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once('drain', next);
        }
        if (!res.destroyed) res.end();
      };
      next();
    };
    handler(res, pump);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
  t.teardown(async () => {
    await pool.close();
    server.closeAllConnections();
    server.close();
  });
  return { pool, written: () => written, connections: () => connections, closed: () => closed };
}

const get = (pool: Pool) => pool.request({ method: 'GET', path: '/' });

t.test('an answer within the cap: its text, BOM dropped, multi-byte characters split across reads joined', async (t) => {
  const text = `{"content":"${'é€😀'.repeat(20_000)}"}`;
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const { pool, connections } = await serve(t, (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Odd-sized writes split characters between reads.
    for (let at = 0; at < bytes.length; at += 1001) res.write(bytes.subarray(at, at + 1001));
    res.end();
  });
  t.equal(await readAnswerText((await get(pool)).body, { name: 'up', maxResponseBytes: bytes.length }), text, 'exactly the cap passes');
  t.equal(await readAnswerText((await get(pool)).body, { name: 'up' }), text, 'the default cap');
  t.equal(connections(), 1, 'a whole answer keeps its pooled connection');
});

t.test('an answer past the cap: a 502 naming the cap, reading stopped, the connection closed', async (t) => {
  const cap = 256 * 1024;
  const { pool, written, connections, closed } = await serve(t, (res, pump) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"secret-looking":"sk-body-content-1"'); // body content must not reach the error
    pump(256 * 1024 * 1024); // 256 MB on offer
  });
  const response = await get(pool);
  const error = await readAnswerText(response.body, { name: 'up', maxResponseBytes: cap }).catch((e: unknown) => e);
  t.match(error, {
    status: 502,
    code: 'upstream_bad_response',
    message: `Provider 'up' sent a response toolgate could not read: an answer larger than ${cap} bytes (providers.up.maxResponseBytes).`,
  });
  t.ok(response.body.destroyed, 'the body is destroyed');
  // The server sees the close: what it managed to write is the cap plus what the sockets buffer.
  await closed();
  t.ok(written() < 32 * 1024 * 1024, `the upstream wrote ${written()} bytes of 256 MB before the close`);
  await readErrorText((await get(pool)).body).catch(() => '');
  t.equal(connections(), 2, 'the next request got a new connection (the cut one was not reused)');
});

t.test('an error body: only its first 64 KiB are read, the rest discarded with the connection', async (t) => {
  const message = JSON.stringify({ error: { message: 'overloaded' } });
  const { pool, written, closed } = await serve(t, (res, pump) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.write(message);
    pump(256 * 1024 * 1024);
  });
  const response = await get(pool);
  const text = await readErrorText(response.body);
  t.equal(Buffer.byteLength(text), ERROR_BODY_PREFIX_BYTES, 'a 64 KiB prefix');
  t.ok(text.startsWith(message), 'from the start of the body');
  t.ok(response.body.destroyed, 'the rest is not read');
  await closed();
  t.ok(written() < 32 * 1024 * 1024, `the upstream wrote ${written()} bytes of 256 MB`);
});

t.test('an error body that fails mid-way reads as empty, never throws', async (t) => {
  const { pool } = await serve(t, (res) => {
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"error":');
    setTimeout(() => res.destroy(), 10);
  });
  t.equal(await readErrorText((await get(pool)).body), '');
});

t.test('a small error body is read whole', async (t) => {
  const { pool, connections } = await serve(t, (res) => {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"slow down"}}');
  });
  t.equal(await readErrorText((await get(pool)).body), '{"error":{"message":"slow down"}}');
  t.equal(await readErrorText((await get(pool)).body), '{"error":{"message":"slow down"}}');
  t.equal(connections(), 1, 'and keeps its connection');
});
