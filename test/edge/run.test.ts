import t from 'tap';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// The edge runner both front doors share (/v1/messages, and /v1/responses on a bridged upstream):
// a failure after the stream started becomes the dialect's own error event(s) and the stream ends
// there; a key the upstream quoted never reaches the client.

const SECRET = 'sk-upstream-secret-0123456789abcdef';
const chunk = (delta: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
const failing: Script = () => ({
  raw: {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: chunk({ role: 'assistant', content: '' }) + chunk({ content: 'partial' }) + `data: ${JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}`, type: 'invalid_request_error', code: 'invalid_api_key' } })}\n\n`,
  },
});

t.test('a failure after the start: the dialect error event, secrets redacted', async (t) => {
  const up = await startOpenAIEmulator({ apiKey: SECRET, script: failing });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: '${UP_KEY}' } }), env: { UP_KEY: SECRET }, logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const post = async (path: string, body: object) => (await fetch(`${gw.url}${path}`, { method: 'POST', body: JSON.stringify({ ...body, stream: true }) })).text();

  const messages = await post('/v1/messages', { model: 'up/m', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
  t.match(messages, /^event: message_start\n/, 'the Messages stream had started');
  const error = /event: error\ndata: (.*)\n\n$/.exec(messages);
  t.ok(error, 'it ends with an error event');
  const body = JSON.parse(error?.[1] ?? '{}');
  t.equal(body.type, 'error');
  t.type(body.error?.type, 'string');
  t.notMatch(messages, SECRET, 'the key the upstream quoted is redacted');
  t.notMatch(messages, /message_stop/, 'no message_stop after an error');

  const responses = await post('/v1/responses', { model: 'up/m', input: 'hi' });
  t.match(responses, /^event: response\.created\n/, 'the Responses stream had started');
  t.match(responses, /event: error\n[^]*event: response\.failed\n/, 'error, then response.failed');
  t.notMatch(responses, SECRET, 'redacted on the Responses bridge too');
});
