import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import * as undici from 'undici';
import { Pool, undiciErrors } from '../../src/providers/undici-parts.js';

t.test('the parts are the package’s own Pool and error classes', async (t) => {
  t.equal(Pool, undici.Pool);
  for (const name of ['HeadersTimeoutError', 'BodyTimeoutError', 'ConnectTimeoutError', 'RequestAbortedError', 'SocketError', 'ResponseExceededMaxSizeError'] as const) {
    t.equal(undiciErrors[name], undici.errors[name], name);
  }
});

t.test('the upstream client loads no more of undici than those parts', async (t) => {
  // In a fresh process: which undici files did importing the upstream client load?
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const script = [
    "const { createRequire } = await import('node:module');",
    "await import('./src/providers/upstream-http.ts');",
    'const cache = createRequire(import.meta.url).cache;',
    "console.log(JSON.stringify(Object.keys(cache).filter((file) => file.includes('/node_modules/undici/'))));",
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const files = JSON.parse(out.trim().split('\n').pop() ?? '[]') as string[];
  t.ok(files.some((file) => file.endsWith('/undici/lib/dispatcher/pool.js')), 'the pool is loaded');
  t.notOk(files.some((file) => file.endsWith('/undici/index.js')), 'the package index (fetch, WebSocket, caches…) is not');
  t.ok(files.length < 80, `${files.length} undici files loaded (the whole package is ~130)`);
});
