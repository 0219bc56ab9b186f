import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import * as undici from 'undici';
import { Pool, parseHeaders, undiciErrors } from '../../src/providers/undici-parts.js';

t.test('the parts are the package’s own Pool and error classes', async (t) => {
  t.equal(Pool, undici.Pool);
  t.equal(parseHeaders, undici.util.parseHeaders, 'the header parser the answer handlers use (answer-text.ts, answer-stream.ts)');
  for (const name of ['HeadersTimeoutError', 'BodyTimeoutError', 'ConnectTimeoutError', 'RequestAbortedError', 'SocketError', 'ResponseExceededMaxSizeError'] as const) {
    t.equal(undiciErrors[name], undici.errors[name], name);
  }
});

t.test('the upstream client works, and loads no more of undici than those parts', async (t) => {
  // In a fresh process that never imports the package index: a real request through the client,
  // then which undici files were loaded.
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const script = [
    "const { createServer } = await import('node:http');",
    "const { createRequire } = await import('node:module');",
    "const { UpstreamClient } = await import('./src/providers/upstream-http.ts');",
    "const { readErrorText } = await import('./src/providers/upstream-body.ts');",
    "const server = createServer((req, res) => { let body = ''; req.on('data', (d) => (body += d)); req.on('end', () => res.end(JSON.stringify({ got: body }))); });",
    "await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));",
    "const client = new UpstreamClient({ name: 'up', type: 'openai-compatible', baseUrl: `http://127.0.0.1:${server.address().port}/v1`, timeoutMs: 5000, streamIdleTimeoutMs: 5000, headers: {} });",
    "const response = await client.post('/chat/completions', '{\"a\":1}', {}, new AbortController().signal);",
    'const text = await readErrorText(response.body);',
    'await client.close(); server.close();',
    'const cache = createRequire(import.meta.url).cache;',
    "console.log(JSON.stringify({ status: response.status, text, files: Object.keys(cache).filter((file) => file.includes('/node_modules/undici/')) }));",
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const { status, text, files } = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { status: number; text: string; files: string[] };
  t.equal(status, 200);
  t.same(JSON.parse(text), { got: '{"a":1}' }, 'the body went up and the answer came back');
  t.ok(files.some((file) => file.endsWith('/undici/lib/dispatcher/pool.js')), 'the pool is loaded');
  t.notOk(files.some((file) => file.endsWith('/undici/index.js')), 'the package index (fetch, WebSocket, caches…) is not');
  t.ok(files.length < 80, `${files.length} undici files loaded (the whole package is ~130)`);
});
