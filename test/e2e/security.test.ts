import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startFaultyUpstream } from '../helpers/faulty-upstream.js';
import { isOpenAIError, post, startReliableGateway } from '../helpers/reliable-gateway.js';

const USER = [{ role: 'user', content: 'hello' }];

/** A server no request may ever reach. */
async function startEvil(): Promise<{ host: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    hits: () => hits,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

t.test('no SSRF: model names and client headers never choose the upstream host or path', async (t) => {
  const upstream = await startFaultyUpstream();
  const evil = await startEvil();
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  openai: {type: openai, baseUrl: ${upstream.baseURL}, apiKey: sk-provider-1234}
  hf: {type: openai-compatible, baseUrl: ${upstream.baseURL}, apiKey: hf-provider-1234}
  gemini: {type: gemini, baseUrl: ${upstream.baseURL}, apiKey: gm-provider-1234}
server:
  forwardHeaders: [x-custom, host, connection, keep-alive, authorization, proxy-authorization, cookie, te, upgrade, transfer-encoding, x-api-key]
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
    await evil.close();
  });

  const hostile = [
    'openai/../../x',
    `openai/..%2f..%2f${evil.host}`,
    `http://${evil.host}/v1`,
    `openai/http://${evil.host}/v1/chat`,
    `hf/@${evil.host}`,
    `hf/${evil.host}#frag`,
    `hf/x?url=http://${evil.host}`,
    'gemini/models/../../../v1/files',
    `gemini/tunedModels/../${evil.host}`,
    `//${evil.host}/v1/chat/completions`,
    `openai/x\r\nHost: ${evil.host}`,
  ];
  for (const model of hostile) {
    const before = upstream.requests.length;
    const res = await post(gw.url, '/v1/chat/completions', { model, messages: USER });
    t.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${JSON.stringify(model)} → ${res.status}`);
    if (res.status >= 400) t.ok(isOpenAIError(res.json));
    for (const request of upstream.requests.slice(before)) {
      t.equal(request.headers.host, upstream.host, `${model}: sent to the configured host`);
      t.notMatch(request.path, /\.\.|%2f|\?url|#/i, `${model}: path ${request.path}`);
      t.match(request.path, /^\/v1\//);
    }
  }
  const ok = await post(gw.url, '/v1/chat/completions', { model: `hf/@${evil.host}`, messages: USER });
  t.equal(ok.status, 200, "'@' in a model id is just part of the id");
  t.equal(upstream.requests.at(-1)!.body.model, `@${evil.host}`, 'the id travels in the body, unchanged');
  t.equal(upstream.requests.at(-1)!.path, '/v1/chat/completions');

  // Client headers: Host / X-Forwarded-Host / Forwarded never redirect; hop-by-hop and credentials never forwarded.
  const before = upstream.requests.length;
  // node:http, not fetch: fetch refuses to send Host, Connection, Keep-Alive, TE …
  const status = await rawPost(gw.url, { model: 'openai/gpt-4o-mini', messages: USER }, {
    host: evil.host,
    'x-forwarded-host': evil.host,
    'x-forwarded-proto': 'http',
    forwarded: `host=${evil.host}`,
    'x-custom': 'kept',
    authorization: 'Bearer client-supplied-key',
    'x-api-key': 'client-supplied-key',
    'proxy-authorization': 'Basic eHh4',
    cookie: 'session=abc',
    te: 'trailers',
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
  });
  t.equal(status, 200);
  const seen = upstream.requests[before];
  t.equal(seen.headers.host, upstream.host);
  t.equal(seen.headers['x-custom'], 'kept', 'allowlisted header forwarded');
  t.equal(seen.headers.authorization, 'Bearer sk-provider-1234', "the provider's key, never the client's");
  for (const name of ['x-forwarded-host', 'forwarded', 'x-api-key', 'proxy-authorization', 'cookie', 'te', 'keep-alive', 'x-forwarded-proto']) {
    t.equal(seen.headers[name], undefined, `${name} not forwarded`);
  }
  t.equal(evil.hits(), 0, 'the other host was never contacted');
});

t.test('secrets: upstream and gateway keys never appear in logs, responses or /metrics', async (t) => {
  const upstream = await startFaultyUpstream();
  const SECRETS = { UPSTREAM_KEY: 'sk-upstream-SECRET-1111', GATEWAY_KEY: 'tg-gateway-SECRET-2222', METRICS_KEY: 'metrics-SECRET-3333' };
  const gw = await startReliableGateway(
    `providers:
  simulator: {type: simulator}
  up:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: \${UPSTREAM_KEY}
    retry: {maxAttempts: 2, baseDelayMs: 1}
auth:
  keys:
    - {key: "\${GATEWAY_KEY}", name: team}
  metricsKey: "\${METRICS_KEY}"
`,
    SECRETS,
    'debug',
  );
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const auth = { authorization: `Bearer ${SECRETS.GATEWAY_KEY}` };
  const texts: string[] = [];
  const send = async (path: string, body: unknown, headers = auth) => {
    const res = await post(gw.url, path, body, headers);
    texts.push(res.text, JSON.stringify([...res.headers]));
    return res;
  };
  t.equal((await send('/v1/chat/completions', { model: 'up/ok', messages: USER }, { authorization: `Bearer ${SECRETS.GATEWAY_KEY}x` })).status, 401);
  t.equal((await send('/v1/chat/completions', { model: 'up/ok', messages: USER }, { authorization: SECRETS.GATEWAY_KEY })).status, 401);
  t.equal((await send('/v1/chat/completions', { model: 'up/ok', messages: USER })).status, 200);
  const echoed = await send('/v1/chat/completions', { model: 'up/echo-key-error', messages: USER });
  t.equal(echoed.status, 502, "a provider 401 is an upstream failure, not the client's own 401");
  t.match(echoed.json.error.message, /Incorrect API key provided: Bearer \[REDACTED\]/, 'the upstream message is kept, the key is not');
  const midStream = await send('/v1/chat/completions', { model: 'up/echo-key-mid-stream', messages: USER, stream: true });
  t.match(midStream.text, /key Bearer \[REDACTED\] revoked/);
  await send('/v1/responses', { model: 'up/echo-key-error', input: 'hi' });
  await send('/v1/responses', { model: 'up/echo-key-mid-stream', input: 'hi', stream: true });
  await send('/v1/chat/completions', { model: 'up/reset-before-headers', messages: USER });
  // A client typing a key into the model name: the answer echoes the client's own text (not
  // checked), but logs and /metrics labels must not carry it.
  const typed = await post(gw.url, '/v1/chat/completions', { model: `up/${SECRETS.GATEWAY_KEY}`, messages: [{ role: 'user', content: SECRETS.UPSTREAM_KEY }] }, auth);
  t.equal(typed.status, 200);
  const metrics = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.METRICS_KEY}` } });
  t.equal(metrics.status, 200);
  texts.push(await metrics.text());
  t.ok(gw.logs.length > 10, `${gw.logs.length} log lines`);
  t.ok(upstream.requests.some((r) => r.headers.authorization === `Bearer ${SECRETS.UPSTREAM_KEY}`), 'the key did go upstream');
  const everything = [...gw.logs, ...texts].join('\n');
  for (const [name, secret] of Object.entries(SECRETS)) t.notOk(everything.includes(secret), `${name} appears nowhere`);
  t.match(gw.logs.join('\n'), /\[REDACTED\]/, 'the scrubber was at work');
});
