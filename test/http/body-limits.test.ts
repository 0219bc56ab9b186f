import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

// Issue 14 §6: a body over the limit must always get its 413 (the server reads and discards up to
// a bound, then closes), never a connection reset that makes SDKs retry the whole upload; and
// request bodies that trickle in slowly are cut off by the request timeout.

const LIMIT = 64 * 1024;
// Short timeouts for the trickle tests.
const gw = await startGateway({
  yaml: `server:\n  host: 127.0.0.1\n  port: 0\n  bodyLimitBytes: ${LIMIT}
  requestTimeoutMs: 1000
  headersTimeoutMs: 1000\nproviders:\n  simulator:\n    type: simulator\n`,
  logLevel: 'warn',
});
t.teardown(() => gw.close());
const { port } = new URL(gw.url);
// The 413 tests upload 16 MB each: on a loaded machine that can take longer than the trickle tests'
// 1 s request timeout (a 408 then, rightly). Their own gateway keeps the default timeouts.
const roomy = await startGateway({
  yaml: `server:\n  host: 127.0.0.1\n  port: 0\n  bodyLimitBytes: ${LIMIT}\nproviders:\n  simulator:\n    type: simulator\n`,
  logLevel: 'warn',
});
t.teardown(() => roomy.close());
const roomyPort = new URL(roomy.url).port;

interface RawExchange {
  /** Everything the server sent before the connection ended. */
  response: string;
  /** The socket error seen while writing or reading (EPIPE, ECONNRESET), if any. */
  error?: string;
}

/** Sends headers + `body` as fast as the socket takes it and reads until the server closes. */
function oversized(body: Buffer, chunked: boolean): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(Number(roomyPort), '127.0.0.1');
    const exchange: RawExchange = { response: '' };
    socket.on('data', (data: Buffer) => (exchange.response += data.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (exchange.error ??= error.code ?? error.message));
    socket.on('close', () => resolve(exchange));
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`}\r\n\r\n`;
    socket.write(head);
    if (chunked) {
      for (let at = 0; at < body.length; at += 16 * 1024) {
        const piece = body.subarray(at, at + 16 * 1024);
        socket.write(`${piece.length.toString(16)}\r\n`);
        socket.write(piece);
        socket.write('\r\n');
      }
      socket.end('0\r\n\r\n');
    } else {
      socket.end(body);
    }
  });
}

t.test('a body over the limit always gets its 413, never a reset', async (t) => {
  const body = Buffer.alloc(LIMIT * 256, 97); // 16 MB against a 64 KB limit
  for (const chunked of [false, true]) {
    const seen = new Map<string, number>();
    for (let i = 0; i < 25; i++) {
      const exchange = await oversized(body, chunked);
      // An SDK fails the request on a write error even when the 413 arrived: both must be clean.
      const status = /^HTTP\/1\.1 (\d{3})/.exec(exchange.response)?.[1] ?? 'no response';
      const key = exchange.error ? `${status} + ${exchange.error}` : status;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    t.same(Object.fromEntries(seen), { 413: 25 }, `${chunked ? 'chunked' : 'content-length'}: 25 × 413 and no socket error`);
  }
  const last = await oversized(body, false);
  t.match(last.response, /"code":\s*"[a-z_]+"/, 'the 413 is an OpenAI-shaped error');
  t.match(last.response, /connection: close/i, 'and closes the connection');
});

/** Opens a socket that sends `head` then one byte of `drip` every 100 ms; resolves when the server closes it. */
function trickle(head: string, drip: string): Promise<{ closedByServer: boolean; response: string }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let response = '';
    let sent = 0;
    socket.on('data', (data: Buffer) => (response += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.write(head);
    // Gives up after 300 bytes (30 s): a server that never times the request out fails the test.
    const timer = setInterval(() => {
      if (sent >= 300 || socket.destroyed) {
        clearInterval(timer);
        socket.destroy();
        return;
      }
      socket.write(drip[sent % drip.length]);
      sent++;
    }, 100);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedByServer: sent < 300, response });
    });
  });
}

t.test('slow request bodies and headers are cut off by the request timeout', async (t) => {
  const bodies = Array.from({ length: 3 }, () =>
    trickle('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n', '{"model": "simulator/weather"'),
  );
  const headers = Array.from({ length: 2 }, () => trickle('POST /v1/chat/completions HTTP/1.1\r\n', 'X-Slow: aaaaaaaaaa\r\n'));
  const results = await Promise.all([...bodies, ...headers]);
  t.same(results.map((r) => r.closedByServer), [true, true, true, true, true], 'the server closed every trickling connection');
  for (const result of results.slice(0, 3)) t.match(result.response, /^HTTP\/1\.1 408[^]*"code":"request_timeout"/, 'a slow body gets an OpenAI-shaped 408');
  const health = await fetch(`${gw.url}/healthz`);
  t.equal(health.status, 200, 'the gateway still serves');
});
