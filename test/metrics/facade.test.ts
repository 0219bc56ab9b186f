import t from 'tap';
import { createMetrics, createPriceLookup, type CostEvent, type MetricsOptions } from '../../src/metrics/index.js';
import { metricSum, metricValue, parseExposition } from './parse-exposition.js';

function build(options: Partial<MetricsOptions> = {}) {
  const metrics = createMetrics({
    knownModels: ['gpt-4o-mini'],
    pricing: createPriceLookup(),
    defaultMetrics: false,
    ...options,
  });
  t.teardown(() => metrics.close());
  return metrics;
}

t.test('exact counter values for LLM calls, tool responses and tool calls', async (t) => {
  const metrics = build();
  const m = metrics.forModel('openai', 'gpt-4o-mini');
  m.llmCall('chat_completions', 'success');
  m.llmCall('chat_completions', 'success');
  m.llmCall('chat_completions', 'retried');
  m.llmCall('responses', 'error_5xx');
  m.toolResponse('native', 2);
  m.toolResponse('text', 1);
  m.toolResponse('none', 0);
  m.toolResponse('native', 3);
  const text = await metrics.render();
  const base = { provider: 'openai', model: 'gpt-4o-mini' };
  const calls = (endpoint: string, outcome: string) =>
    metricValue(text, 'toolgate_llm_calls_total', { ...base, endpoint, outcome });
  t.equal(calls('chat_completions', 'success'), 2);
  t.equal(calls('chat_completions', 'retried'), 1);
  t.equal(calls('chat_completions', 'timeout'), 0, 'every outcome starts at 0 so error ratios are never empty');
  t.equal(calls('responses', 'error_5xx'), 1);
  t.equal(metricSum(text, 'toolgate_llm_calls_total'), 4);
  const responses = (mode: string) => metricValue(text, 'toolgate_tool_responses_total', { ...base, mode });
  t.equal(responses('native'), 2);
  t.equal(responses('text'), 1);
  t.equal(responses('none'), 1);
  t.equal(responses('prompt'), 0);
  const toolCalls = (mode: string) => metricValue(text, 'toolgate_tool_calls_total', { ...base, mode });
  t.equal(toolCalls('native'), 5);
  t.equal(toolCalls('text'), 1);
  t.equal(toolCalls('prompt'), 0);
  t.equal(metricValue(text, 'toolgate_tool_calls_total', { ...base, mode: 'none' }), undefined, 'no mode=none tool calls');
});

t.test('requests, duration and overhead', async (t) => {
  const metrics = build();
  metrics.observeRequest({ endpoint: 'chat_completions', status: 200, durationSeconds: 1.5, upstreamSeconds: 1.25 });
  metrics.observeRequest({ endpoint: 'chat_completions', status: 400, durationSeconds: 0.002 });
  metrics.observeRequest({ endpoint: 'nope' as never, status: 200, durationSeconds: 0.01 });
  metrics.observeRequest({ endpoint: 'models', status: 9999, durationSeconds: 0.01 });
  metrics.observeRequest({ endpoint: 'responses', status: 201, durationSeconds: 0.001, upstreamSeconds: 0 });
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_requests_total', { endpoint: 'chat_completions', status: '200' }), 1);
  t.equal(metricValue(text, 'toolgate_requests_total', { endpoint: 'chat_completions', status: '400' }), 1);
  t.equal(metricValue(text, 'toolgate_requests_total', { endpoint: 'other', status: '200' }), 1, 'unknown endpoint → other');
  t.equal(metricValue(text, 'toolgate_requests_total', { endpoint: 'models', status: 'other' }), 1, 'bad status → other');
  t.equal(metricValue(text, 'toolgate_requests_total', { endpoint: 'responses', status: '201' }), 1);
  t.equal(metricValue(text, 'toolgate_request_duration_seconds_count', { endpoint: 'chat_completions' }), 2);
  t.equal(metricValue(text, 'toolgate_request_duration_seconds_sum', { endpoint: 'chat_completions' }), 1.502);
  t.equal(metricValue(text, 'toolgate_overhead_seconds_count'), 2, 'only requests that called an upstream (an upstream time of 0 included)');
  const overheadSum = metricValue(text, 'toolgate_overhead_seconds_sum') ?? NaN;
  t.ok(Math.abs(overheadSum - 0.25) < 0.01, `overhead = duration - upstream (${overheadSum})`);
  t.equal(metricValue(text, 'toolgate_overhead_seconds_bucket', { le: '0.1' }), 1, 'the quick request');
  t.equal(metricValue(text, 'toolgate_overhead_seconds_bucket', { le: '0.25' }), 2);
});

t.test('tokens and cost from the shipped price table; cost events and costFor', async (t) => {
  const metrics = build();
  const events: CostEvent[] = [];
  const unsubscribe = metrics.onCost((e) => events.push(e));
  const m = metrics.forModel('openai', 'gpt-4o-mini');
  // gpt-4o-mini: 0.15 in, 0.60 out, 0.075 cached per 1M
  const usd = m.usage(
    {
      prompt_tokens: 1_000_000,
      completion_tokens: 500_000,
      total_tokens: 1_500_000,
      prompt_tokens_details: { cached_tokens: 200_000 },
      completion_tokens_details: { reasoning_tokens: 100_000 },
    },
    'team-a',
  );
  t.ok(Math.abs(usd - (0.8 * 0.15 + 0.2 * 0.075 + 0.5 * 0.6)) < 1e-9, `usd ${usd}`);
  unsubscribe();
  m.usage({ prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 });
  const text = await metrics.render();
  const base = { provider: 'openai', model: 'gpt-4o-mini' };
  t.equal(metricValue(text, 'toolgate_tokens_total', { ...base, type: 'prompt' }), 2_000_000);
  t.equal(metricValue(text, 'toolgate_tokens_total', { ...base, type: 'completion' }), 500_000);
  t.equal(metricValue(text, 'toolgate_tokens_total', { ...base, type: 'reasoning' }), 100_000);
  const cost = metricValue(text, 'toolgate_cost_usd_total', base) ?? NaN;
  t.ok(Math.abs(cost - (usd + 0.15)) < 1e-9, `cost counter ${cost}`);
  t.ok(Math.abs(metrics.costFor() - cost) < 1e-9);
  t.ok(Math.abs(metrics.costFor({ provider: 'openai', model: 'gpt-4o-mini' }) - cost) < 1e-9);
  t.equal(metrics.costFor({ provider: 'gemini' }), 0);
  t.equal(events.length, 1, 'unsubscribed listener is not called again');
  t.match(events[0], { provider: 'openai', model: 'gpt-4o-mini', upstreamModel: 'gpt-4o-mini', budgetKey: 'team-a' });
});

t.test('config prices override; unpriced models count tokens without cost', async (t) => {
  const metrics = build({
    knownModels: ['fast', 'local'],
    pricing: createPriceLookup({ 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo': { inputPerMTok: 1, outputPerMTok: 2 } }),
  });
  const fast = metrics.forModel('together', 'fast', 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
  t.equal(fast.modelLabel, 'fast');
  t.equal(fast.usage({ prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 }), 3);
  const local = metrics.forModel('ollama', 'local', 'my-finetune');
  t.equal(local.usage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }), 0);
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_cost_usd_total', { provider: 'together', model: 'fast' }), 3);
  t.equal(metricValue(text, 'toolgate_cost_usd_total', { provider: 'ollama', model: 'local' }), 0);
  t.equal(metricValue(text, 'toolgate_unpriced_tokens_total', { provider: 'ollama', model: 'local' }), 15);
});

t.test('label cardinality: configured models + first N seen, then other; bounded kinds', async (t) => {
  const metrics = build({ knownModels: ['a', 'b'], maxModelLabels: 2 });
  for (const model of ['a', 'x1', 'x2', 'x3', 'x4', 'b', 'x1']) {
    metrics.forModel('p', model).llmCall('chat_completions', 'success');
  }
  t.equal(metrics.forModel('p', 'x3').modelLabel, 'other');
  t.equal(metrics.forModel('p', 'x2').modelLabel, 'x2');
  for (let i = 0; i < 100; i += 1) metrics.repairs([{ kind: `kind_${i}` }]);
  metrics.repairs([{ kind: 'kind_0' }, { kind: 'has spaces and "quotes"' }]);
  const text = await metrics.render();
  const models = new Set(
    parseExposition(text)
      .filter((s) => s.name === 'toolgate_llm_calls_total')
      .map((s) => s.labels.model),
  );
  t.same([...models].sort(), ['a', 'b', 'other', 'x1', 'x2']);
  const success = (model: string) =>
    metricValue(text, 'toolgate_llm_calls_total', { provider: 'p', model, endpoint: 'chat_completions', outcome: 'success' });
  t.equal(success('x1'), 2);
  t.equal(success('other'), 2, 'x3 and x4');
  const kinds = parseExposition(text).filter((s) => s.name === 'toolgate_repairs_total');
  t.equal(kinds.length, 65, '64 kinds + other');
  t.equal(metricValue(text, 'toolgate_repairs_total', { kind: 'kind_0' }), 2);
  t.equal(metricValue(text, 'toolgate_repairs_total', { kind: 'other' }), 37);
});

t.test('tool problem counters and aliasing', async (t) => {
  const metrics = build();
  metrics.toolLoop();
  metrics.unknownToolName(2);
  metrics.invalidToolArguments();
  metrics.invalidToolArguments(0);
  const m = metrics.forModel('openai', 'gpt-4o-mini');
  m.toolNameAliased('case');
  m.toolNameAliased('case');
  m.toolNameAliased('configured_alias');
  m.firstToken(0.3);
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_tool_loops_total'), 1);
  t.equal(metricValue(text, 'toolgate_unknown_tool_names_total'), 2);
  t.equal(metricValue(text, 'toolgate_invalid_tool_arguments_total'), 1);
  const base = { provider: 'openai', model: 'gpt-4o-mini' };
  t.equal(metricValue(text, 'toolgate_tool_name_aliased_total', { ...base, how: 'case' }), 2);
  t.equal(metricValue(text, 'toolgate_time_to_first_token_seconds_count', base), 1);
  t.equal(metricValue(text, 'toolgate_time_to_first_token_seconds_bucket', { ...base, le: '0.25' }), 0);
  t.equal(metricValue(text, 'toolgate_time_to_first_token_seconds_bucket', { ...base, le: '0.5' }), 1);
});

t.test('one registry per instance; default metrics keep their standard names', async (t) => {
  const one = createMetrics({ knownModels: [], pricing: createPriceLookup() });
  const two = createMetrics({ knownModels: [], pricing: createPriceLookup() });
  t.teardown(() => {
    one.close();
    two.close();
  });
  one.toolLoop();
  const [a, b] = await Promise.all([one.render(), two.render()]);
  t.equal(metricValue(a, 'toolgate_tool_loops_total'), 1);
  t.equal(metricValue(b, 'toolgate_tool_loops_total'), 0);
  t.match(a, /^process_cpu_user_seconds_total /m);
  t.match(a, /^nodejs_heap_size_total_bytes /m);
  t.notMatch(a, /toolgate_process_|toolgate_nodejs_/);
  t.match(one.contentType, /^text\/plain/);
});
