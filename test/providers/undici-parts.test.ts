import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import * as undici from 'undici';
import { Pool, parseHeaders, undiciErrors } from '../../src/providers/undici-parts.js';
import { readErrorText } from '../../src/providers/upstream-body.js';
import { UpstreamClient } from '../../src/providers/upstream-http.js';

t.test('the parts are the package’s own Pool and error classes', async (t) => {
  t.equal(Pool, undici.Pool);
  t.equal(parseHeaders, undici.util.parseHeaders, 'the header parser the answer handlers use (answer-text.ts, answer-stream.ts)');
  for (const name of ['HeadersTimeoutError', 'BodyTimeoutError', 'ConnectTimeoutError', 'RequestAbortedError', 'SocketError', 'ResponseExceededMaxSizeError'] as const) {
    t.equal(undiciErrors[name], undici.errors[name], name);
  }
});

t.test('the upstream client sends a body and reads the answer through those parts', async (t) => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (data: Buffer) => (body += data.toString()));
    req.on('end', () => res.end(JSON.stringify({ got: body })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const client = new UpstreamClient({ name: 'up', type: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 5000, streamIdleTimeoutMs: 5000, headers: {} });
  t.teardown(() => client.close());
  const response = await client.post('/chat/completions', '{"a":1}', {}, new AbortController().signal);
  t.equal(response.status, 200);
  t.same(JSON.parse(await readErrorText(response.body)), { got: '{"a":1}' }, 'the body went up and the answer came back');
});
