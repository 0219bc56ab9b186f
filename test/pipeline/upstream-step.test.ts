import t from 'tap';
import { startFaultyUpstream } from '../helpers/faulty-upstream.js';
import { post, startReliableGateway } from '../helpers/reliable-gateway.js';

// The upstream step hands the pipeline the target that answered: a fallback's answer is measured
// (first token, tokens) under the fallback's own labels, not the requested model's.

t.test('an answer from a fallback is measured under the fallback that served it (JSON and stream)', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  flaky:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-flaky-1234
    retry: {maxAttempts: 1}
models:
  guarded: {provider: flaky, model: http-503@guarded, fallbacks: [simulator/weather]}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  for (const stream of [false, true]) {
    const answer = await post(gw.url, '/v1/chat/completions', { model: 'guarded', messages: [{ role: 'user', content: 'weather in Paris?' }], stream });
    t.equal(answer.status, 200, `stream ${stream}: the fallback answered`);
  }
  t.equal(upstream.total(), 2, 'the requested target was tried first each time');
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const served = (name: string): string[] => metrics.split('\n').filter((line) => line.startsWith(name) && !line.includes('model="guarded"'));
  const requested = (name: string): string[] => metrics.split('\n').filter((line) => line.startsWith(name) && line.includes('model="guarded"') && !line.endsWith(' 0'));
  for (const name of ['toolgate_time_to_first_token_seconds_count', 'toolgate_tokens_total']) {
    t.ok(served(name).some((line) => line.includes('model="simulator/weather"') && !line.endsWith(' 0')), `${name}: under the fallback`);
    t.same(requested(name), [], `${name}: nothing counted under the requested model`);
  }
});
