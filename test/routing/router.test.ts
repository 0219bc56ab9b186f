import t from 'tap';
import { parseConfig } from '../../src/config/load.js';
import { createProviders } from '../../src/providers/registry.js';
import { ModelRouter } from '../../src/routing/router.js';
import { GatewayError } from '../../src/errors.js';

const loaded = parseConfig(
  `providers:
  simulator: {type: simulator}
  hf: {type: openai-compatible, baseUrl: "http://127.0.0.1:1/v1", apiKey: k}
  together: {type: openai-compatible, baseUrl: "http://127.0.0.1:2/v1"}
models:
  weather: {provider: simulator, model: weather}
  qwen: {provider: hf, model: "Qwen/Qwen2.5-72B-Instruct", toolCalling: prompt}
`,
  {},
);
const router = new ModelRouter(loaded.config, createProviders(loaded.config, {}));

t.test('friendly names resolve to their provider and upstream id', async (t) => {
  const r = router.resolve('qwen');
  t.equal(r.provider.settings.name, 'hf');
  t.equal(r.upstreamModel, 'Qwen/Qwen2.5-72B-Instruct');
  t.equal(r.toolCalling, 'prompt');
});

t.test('<provider>/<id> keeps slashes and colons in the upstream id', async (t) => {
  const a = router.resolve('hf/Qwen/Qwen2.5-72B-Instruct:together');
  t.equal(a.provider.settings.name, 'hf');
  t.equal(a.upstreamModel, 'Qwen/Qwen2.5-72B-Instruct:together');
  const b = router.resolve('together/meta-llama/Llama-3.3-70B-Instruct-Turbo');
  t.equal(b.provider.settings.name, 'together');
  t.equal(b.upstreamModel, 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
  // the same target as a configured model lends its settings
  t.equal(router.resolve('hf/Qwen/Qwen2.5-72B-Instruct').toolCalling, 'prompt');
});

t.test('unknown models are a 404 model_not_found', async (t) => {
  for (const name of ['nope', 'nope/x', 'hf/', '/x', 'gpt-4o']) {
    try {
      router.resolve(name);
      t.fail(`expected ${name} to be unknown`);
    } catch (error) {
      t.type(error, GatewayError);
      t.equal((error as GatewayError).status, 404);
      t.equal((error as GatewayError).code, 'model_not_found');
      t.equal((error as GatewayError).param, 'model');
    }
  }
});

t.test('list of configured models', async (t) => {
  t.same(router.listModels().map((m) => m.id), ['weather', 'qwen']);
});
