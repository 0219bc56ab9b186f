import OpenAI from 'openai';
import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { runToolLoop } from '../helpers/tool-loop.js';

const gw = await startGateway({ yaml: configFor({}, 'models:\n  weather:\n    provider: simulator\n    model: weather\n') });
t.teardown(() => gw.close());
const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 });

for (const stream of [false, true]) {
  for (const model of ['simulator/weather', 'weather', 'simulator/weather:hermes']) {
    t.test(`${model} completes a tool loop (${stream ? 'stream' : 'json'})`, async (t) => {
      const result = await runToolLoop(client, model, 'What is the weather in Lisbon and Rome?', stream);
      t.equal(result.steps, 1, 'one tool step');
      t.equal(result.llmCalls, 2, 'one LLM call per step plus the answer');
      t.equal(result.calls[0].length, 2, 'parallel calls for two cities');
      t.same(result.calls[0].map((c) => JSON.parse(c.function.arguments).city), ['Lisbon', 'Rome']);
      t.match(result.final, /Lisbon/);
      t.match(result.final, /Rome/);
      const mode = result.headers[0].get('x-toolgate-tool-mode');
      if (!stream) t.equal(mode, model.endsWith(':hermes') ? 'text' : 'native');
    });
  }
}

t.test('without tools the simulator answers in text', async (t) => {
  const answer = await client.chat.completions.create({ model: 'simulator/weather', messages: [{ role: 'user', content: 'Say hi' }] });
  t.equal(answer.choices[0].finish_reason, 'stop');
  t.match(answer.choices[0].message.content, /Say hi/);
  t.ok(answer.usage && answer.usage.total_tokens > 0);
});

t.test('unknown simulator model → 404', async (t) => {
  await t.rejects(client.chat.completions.create({ model: 'simulator/nope', messages: [{ role: 'user', content: 'x' }] }), { status: 404 } as any);
});

t.test('GET /v1/models lists configured models in the OpenAI list shape', async (t) => {
  const list = await client.models.list();
  t.same(list.data.map((m) => m.id), ['weather']);
  t.equal(list.data[0].object, 'model');
  const one = await client.models.retrieve('simulator/weather');
  t.equal(one.id, 'simulator/weather');
});

t.test('healthz and readyz', async (t) => {
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  const ready = await fetch(`${gw.url}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready', state: { backend: 'memory', status: 'ok' } });
});
