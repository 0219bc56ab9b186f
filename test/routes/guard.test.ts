import t, { type Test } from 'tap';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

// The guards (preHandler) read bodies that preValidation already validated (issue 16 §5): a
// malformed body is a 400 naming its field whatever the key's limits say, and it does not use
// up a rate-limit slot.

const KEY = 'tg-guard-key-0001';
const USER = [{ role: 'user', content: 'What is the weather in Paris?' }];

async function gateway(t: Test, keyExtra: string): Promise<TestGateway> {
  const yaml = [
    'providers:',
    '  simulator: {type: simulator}',
    'models:',
    '  weather: {provider: simulator, model: weather}',
    'limits:',
    '  maxMessages: 4',
    'auth:',
    '  keys:',
    `    - {key: "${KEY}", name: guarded${keyExtra}}`,
    '',
  ].join('\n');
  const gw = await startGateway({ yaml, logLevel: 'error' });
  t.teardown(() => gw.close());
  return gw;
}

async function post(gw: TestGateway, path: string, body: unknown): Promise<{ status: number; error: { message: string; param: string | null; code: string } }> {
  const response = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { error: { message: string; param: string | null; code: string } };
  return { status: response.status, error: json.error };
}

// Bodies whose shape is wrong where a guard looks (model, the arrays it counts), per endpoint.
const MALFORMED: Array<{ name: string; path: string; body: Record<string, unknown>; param: string }> = [
  { name: 'chat: model is an object', path: '/v1/chat/completions', body: { model: { id: 'weather' }, messages: USER }, param: 'model' },
  { name: 'chat: model is an array', path: '/v1/chat/completions', body: { model: ['weather'], messages: USER }, param: 'model' },
  { name: 'chat: tools is an object', path: '/v1/chat/completions', body: { model: 'weather', messages: USER, tools: { get_weather: {} } }, param: 'tools' },
  { name: 'chat: messages is an object', path: '/v1/chat/completions', body: { model: 'weather', messages: { 0: USER[0], length: 1 } }, param: 'messages' },
  { name: 'responses: model is an object', path: '/v1/responses', body: { model: { id: 'weather' }, input: 'hi' }, param: 'model' },
  { name: 'responses: tools is a string', path: '/v1/responses', body: { model: 'weather', input: 'hi', tools: 'get_weather' }, param: 'tools' },
];

t.test('a malformed body is a 400 naming its field, even when the key is out of requests', async (t) => {
  const gw = await gateway(t, ', requestsPerMinute: 1');
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
  t.equal((await post(gw, '/v1/chat/completions', { model: 'weather', messages: USER })).status, 200, 'the one request of this minute');
  for (const { name, path, body, param } of MALFORMED) {
    const res = await post(gw, path, body);
    t.equal(res.status, 400, name);
    t.equal(res.error.param, param, `${name}: param`);
    t.match(res.error.message, new RegExp(`'${param.replace(/[[\]]/g, '\\$&')}'`), `${name}: the message names the field`);
  }
});

t.test('malformed bodies do not use up the rate limit', async (t) => {
  const gw = await gateway(t, ', requestsPerMinute: 1');
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
  for (const { name, path, body } of MALFORMED) t.equal((await post(gw, path, body)).status, 400, name);
  t.equal((await post(gw, '/v1/chat/completions', { model: 'weather', messages: USER })).status, 200, 'the minute still has its one request');
});

t.test('validation comes before the guards: the first problem reported is the body shape', async (t) => {
  const gw = await gateway(t, ', models: ["weather"]');
  const badModelManyMessages = await post(gw, '/v1/chat/completions', { model: 7, messages: [...USER, ...USER, ...USER, ...USER, ...USER] });
  t.equal(badModelManyMessages.status, 400);
  t.equal(badModelManyMessages.error.param, 'model', 'the model type, not the message count of a body that is not a request');
  const notAllowedAndMalformed = await post(gw, '/v1/chat/completions', { model: 'simulator/weather', messages: 'hello' });
  t.equal(notAllowedAndMalformed.status, 400, 'a malformed body is refused as malformed');
  t.equal(notAllowedAndMalformed.error.param, 'messages');
  const tooMany = await post(gw, '/v1/chat/completions', { model: 'weather', messages: [...USER, ...USER, ...USER, ...USER, ...USER] });
  t.equal(tooMany.status, 400, 'a valid body over the limits is still refused by the guard');
  t.equal(tooMany.error.code, 'array_above_max_length');
  const notAllowed = await post(gw, '/v1/chat/completions', { model: 'simulator/weather', messages: USER });
  t.equal(notAllowed.status, 403, 'a valid body for a model outside the key is a 403');
});
