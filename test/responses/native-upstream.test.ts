import t from 'tap';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { startReliableGateway } from '../helpers/reliable-gateway.js';

// Issue 16 §1: native Responses goes through the one upstream caller — retries, circuit breaker,
// fallbacks and the redaction of upstream text, as chat does.

const responseObject = (id: string, text: string) => ({
  id,
  object: 'response',
  created_at: 1,
  status: 'completed',
  model: 'gpt-x',
  output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
  usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
});

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

t.test('native Responses: retried, then the configured fallback answers (JSON and SSE)', async (t) => {
  const down = await startRawUpstream((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'The engine is currently overloaded.', type: 'server_error', param: null, code: null } }));
  });
  const backup = await startRawUpstream((_req, res, raw) => {
    const body = JSON.parse(raw);
    const response = responseObject('resp_backup', `served by ${body.model}`);
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(response));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sse('response.created', { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [] } }));
    res.end(sse('response.completed', { type: 'response.completed', sequence_number: 1, response }));
  });
  const gw = await startReliableGateway(`providers:
  primary: {type: openai, baseUrl: ${down.baseURL}, apiKey: sk-primary-1234, retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5}}
  secondary: {type: openai, baseUrl: ${backup.baseURL}, apiKey: sk-secondary-1234}
models:
  smart: {provider: primary, model: gpt-main, fallbacks: [secondary/gpt-backup]}
`);
  t.teardown(async () => {
    await gw.close();
    await Promise.all([down.close(), backup.close()]);
  });
  const json = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'smart', input: 'hi' }) });
  t.equal(json.status, 200, 'the fallback answered');
  const body: any = await json.json();
  t.equal(body.output[0].content[0].text, 'served by gpt-backup');
  t.equal(down.hits, 2, 'the primary was retried once first');

  const stream = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'smart', input: 'hi', stream: true }) });
  t.equal(stream.status, 200);
  t.match(await stream.text(), /event: response\.completed[\s\S]*served by gpt-backup/);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_llm_calls_total\{[^}]*model="smart"[^}]*endpoint="responses",outcome="fallback"\} 2/);
  t.match(metrics, /toolgate_llm_calls_total\{[^}]*model="secondary\/gpt-backup"[^}]*endpoint="responses",outcome="success"\} 2/);
});

t.test('native Responses: an upstream error event quoting the provider key is scrubbed', async (t) => {
  const upstream = await startRawUpstream((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sse('response.created', { type: 'response.created', sequence_number: 0, response: { ...responseObject('resp_1', ''), status: 'in_progress', output: [] } }));
    res.end(sse('error', { type: 'error', code: 'invalid_api_key', message: `Incorrect API key provided: ${req.headers.authorization}`, param: null, sequence_number: 1 }));
  });
  const gw = await startReliableGateway(`providers:
  openai: {type: openai, baseUrl: ${upstream.baseURL}, apiKey: sk-native-SECRET-9876}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const response = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-x', input: 'hi', stream: true }) });
  const text = await response.text();
  t.match(text, /event: error/, 'the error event still reaches the client');
  t.notMatch(text, /sk-native-SECRET-9876/, 'without the key');
});

t.test('native Responses: a fallback without native /responses answers through the bridge', async (t) => {
  const down = await startRawUpstream((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'The engine is currently overloaded.', type: 'server_error', param: null, code: null } }));
  });
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  primary: {type: openai, baseUrl: ${down.baseURL}, apiKey: sk-primary-1234, retry: {maxAttempts: 1}}
models:
  smart: {provider: primary, model: gpt-main, fallbacks: [simulator/weather]}
`);
  t.teardown(async () => {
    await gw.close();
    await down.close();
  });
  for (const stream of [false, true]) {
    const response = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'smart', input: 'Weather in Oslo?', stream }) });
    t.equal(response.status, 200, `the simulator fallback answered (${stream ? 'SSE' : 'JSON'})`);
    const text = await response.text();
    if (stream) t.match(text, /event: response\.completed/);
    else t.equal(JSON.parse(text).status, 'completed');
  }
  t.equal(down.hits, 2, 'the native target was tried first each time');
});
