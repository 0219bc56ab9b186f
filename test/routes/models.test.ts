import t from 'tap';
import { startReliableGateway } from '../helpers/reliable-gateway.js';

// GET /v1/models[/id]: only what exists (as far as the gateway can vouch), only what the key may use.

const ALPHA = 'tg-alpha-key-0001';
const BETA = 'tg-beta-key-00002';
const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const yaml = (auth = ''): string =>
  `providers:\n  simulator: {type: simulator}\n  up: {type: openai-compatible, baseUrl: "http://127.0.0.1:9/v1", apiKey: sk-x}\nmodels:\n  weather: {provider: simulator, model: weather}\n  remote: {provider: up, model: some-model}\n${auth}`;

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { headers });
  return { status: res.status, json: await res.json() };
}

t.test('GET /v1/models/<id>: 200 for what exists, 404 model_not_found for the rest', async (t) => {
  const gw = await startReliableGateway(yaml(), {}, 'silent');
  t.teardown(() => gw.close());
  for (const id of ['weather', 'remote', 'simulator/weather', 'simulator/weather:hermes', 'up/some-model']) {
    const one = await get(`${gw.url}/v1/models/${id}`);
    t.equal(one.status, 200, id);
    t.equal(one.json.id, id);
  }
  for (const id of ['no-such-model', 'simulator/nope', 'up/made-up-model', 'nowhere/x']) {
    const missing = await get(`${gw.url}/v1/models/${id}`);
    t.equal(missing.status, 404, id);
    t.same(missing.json.error, { message: `The model '${id}' does not exist or you do not have access to it.`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
  }
});

t.test("/v1/models lists, and /v1/models/<id> shows, only what the key's globs allow", async (t) => {
  const gw = await startReliableGateway(yaml(`auth:\n  keys:\n    - {key: "${ALPHA}", name: alpha}\n    - {key: "${BETA}", name: beta, models: ["simulator/*"]}\n`), {}, 'silent');
  t.teardown(() => gw.close());
  t.same((await get(`${gw.url}/v1/models`, bearer(ALPHA))).json.data.map((m: { id: string }) => m.id), ['weather', 'remote']);
  t.same((await get(`${gw.url}/v1/models`, bearer(BETA))).json.data.map((m: { id: string }) => m.id), ['weather'], "'remote' is on another provider");
  t.equal((await get(`${gw.url}/v1/models/remote`, bearer(ALPHA))).status, 200);
  const hidden = await get(`${gw.url}/v1/models/remote`, bearer(BETA));
  t.equal(hidden.status, 404);
  t.equal(hidden.json.error.code, 'model_not_found');
  t.equal((await get(`${gw.url}/v1/models/simulator/weather`, bearer(BETA))).status, 200);
});
