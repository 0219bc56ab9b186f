/* global process, URL, AbortController, TextDecoder */
// The floor for any Node proxy: Fastify + an undici Pool, request and response bodies relayed as
// bytes (no JSON parsing, no SSE parsing). Same pool settings as toolgate's UpstreamClient
// (src/providers/upstream-http.ts), so the comparison measures what toolgate does on top, not
// connection handling. Plain JavaScript so no loader sits in the measured process.
// With `--parse` it is the floor for a gateway that reads the JSON: the request body is parsed
// and re-serialized, a JSON answer is parsed and sent as an object, and every SSE event is parsed
// and re-serialized — the work any body-inspecting gateway does, and nothing else.
// Usage (child of bench/run.ts): node bench/bare-proxy.mjs <upstream base URL, e.g. http://127.0.0.1:1234/v1> [--parse]
// POST <base path>/chat/completions goes to the base URL; any other POST path ending in
// /v1/chat/completions (the emulated upstream's /burst/v1/…, /slow/v1/…) goes to the same path there.

import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { childReady } from './child-ready.mjs';

const upstream = new URL(process.argv[2] ?? '');
const parse = process.argv.includes('--parse');
const basePath = upstream.pathname.replace(/\/+$/, '');
// No connection cap, as toolgate's default (`maxConnections: null`): a cap would queue the 1,000-stream
// test's streams behind each other and measure fewer streams at once than toolgate carries.
const pool = new Pool(upstream.origin, { connections: null, pipelining: 1, keepAliveTimeout: 30_000 });

const app = Fastify({ logger: false, bodyLimit: 20 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: parse ? 'string' : 'buffer' }, (_request, body, done) => {
  if (!parse) return done(null, body);
  try {
    done(null, JSON.parse(body));
  } catch (error) {
    done(error, undefined);
  }
});

app.post('/*', async (request, reply) => {
  const path = request.url.endsWith('/v1/chat/completions') && request.url !== '/v1/chat/completions' ? request.url : `${basePath}/chat/completions`;
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const response = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: parse ? JSON.stringify(request.body) : request.body,
    signal: abort.signal,
  });
  reply.code(response.statusCode);
  const type = response.headers['content-type'];
  if (typeof type === 'string') reply.header('content-type', type);
  if (!parse) {
    const length = response.headers['content-length'];
    if (typeof length === 'string') reply.header('content-length', length);
    return reply.send(response.body);
  }
  if (typeof type === 'string' && type.startsWith('text/event-stream')) return reply.send(Readable.from(reserializeEvents(response.body)));
  return reply.send(JSON.parse(await response.body.text()));
});

/** SSE events parsed and re-serialized one by one, as they arrive. */
async function* reserializeEvents(body) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.startsWith('data: ') ? event.slice(6) : event;
      yield data === '[DONE]' ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(JSON.parse(data))}\n\n`;
    }
  }
}

const url = await app.listen({ host: '127.0.0.1', port: 0 });
childReady(url, { parse }, async () => {
  await app.close();
  await pool.close();
});
