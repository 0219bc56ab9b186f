import t, { type Test } from 'tap';
import { Pool } from 'undici';
import { dispatchStream } from '../../src/providers/answer-stream.js';
import { ERROR_BODY_PREFIX_BYTES, readErrorText } from '../../src/providers/upstream-body.js';
import { pumpingServer, type PumpingServer } from '../helpers/pumping-server.js';

// An error answer's body (a stream's error status, read off the pool as a stream's: answer-stream.ts)
// is read to a prefix; past it the request is cancelled, so the upstream connection is closed, not
// pooled mid-body. Whole JSON answers are read by answer-text.ts (answer-text.test.ts).

interface Served extends PumpingServer {
  pool: Pool;
}

async function serve(t: Test, handler: Parameters<typeof pumpingServer>[1]): Promise<Served> {
  const server = await pumpingServer(t, handler);
  const pool = new Pool(server.origin, { connections: 1 });
  t.teardown(() => pool.close());
  return { ...server, pool };
}

const get = (pool: Pool) => dispatchStream(pool, { method: 'GET', path: '/' }, new AbortController().signal);

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
  t.ok(response.body.ended instanceof Error, 'the rest is not read (the request was cancelled)');
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
