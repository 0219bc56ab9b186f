import t, { type Test } from 'tap';
import type { ChatRequest, RawChatRequest } from '../../src/api/chat-types.js';
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

// The usual call (one target, no fallback, first attempt answers) used to pass its answer up
// through ~9 async layers (callUpstream, callWithFallbacks, callTarget, attempts, the send
// closure, complete, postJson, post, the client): each a promise, a microtask and a frame per
// request. Counted here with the provider's call stubbed: the promises the chat side adds around
// it (the old chain made 11 on Node 20, this one 5; with the hook on, each await makes one too).
t.test('the upstream step adds few promises around the provider call (one target, first attempt)', async (t) => {
  const { createHook } = await import('node:async_hooks');
  const { callUpstream } = await import('../../src/pipeline/upstream-step.js');
  const { gw, target, scopeFor } = await simulatorStep(t);
  const completion = { id: 'c', object: 'chat.completion', created: 1, model: 'weather', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'sunny' } }] };
  const answer = Promise.resolve(completion);
  // Stubbed on this target's adapter only: the provider's own promises are not counted.
  (target.provider as unknown as { complete: () => Promise<unknown> }).complete = () => answer;
  const request = { model: 'simulator/weather', messages: [{ role: 'user' as const, content: 'weather?' }] };
  const budgets = gw.gateway.workBudgets.forScope('');
  const scope = scopeFor(request);
  await callUpstream(request, target, scope, budgets); // warm: caches, lazy loads
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++;
    },
  }).enable();
  const call = await callUpstream(request, target, scope, budgets);
  hook.disable();
  t.equal(call.kind, 'json', 'the answer came through');
  t.ok(promises <= 6, `promises around the provider call: ${promises}`);
});

// A stream's normalize context lives as long as the stream. Its name resolvers were closures made in
// callTarget, whose scope they shared: every stream kept the body sent upstream (for a renamed,
// re-identified or prompt-mode call, a copy of the whole history) until its end.
t.test("a stream's normalize context does not keep the body sent upstream", async (t) => {
  const { settledHeap } = await import('../helpers/heap.js');
  const { callUpstream } = await import('../../src/pipeline/upstream-step.js');
  const { gw, target, scopeFor } = await simulatorStep(t);
  let sent: WeakRef<object> | undefined;
  // Stubbed on this target's adapter: answers with a stream that has not started, keeps no body.
  (target.provider as unknown as { stream: (body: object) => Promise<AsyncIterable<unknown>> }).stream = (body) => {
    sent = new WeakRef(body);
    return Promise.resolve({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<unknown>>(() => undefined) }) });
  };
  const tool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
  const request = { model: 'simulator/weather', stream: true, messages: [{ role: 'user' as const, content: 'weather?' }], tools: [tool] };
  const call = await callUpstream(request, target, scopeFor(request), gw.gateway.workBudgets.forScope(''));
  t.equal(call.kind, 'stream', 'a stream came back');
  t.not(sent, undefined, 'the provider was called');
  await settledHeap();
  t.equal(sent?.deref(), undefined, 'the body sent upstream was collected while the stream is open');
  t.equal(call.normalizeContext.resolveName('get_weather'), 'get_weather', 'the context still resolves names');
});

/** A gateway with the simulator, its weather target, and the scope callUpstream takes for one request. */
async function simulatorStep(t: Test) {
  const { startGateway } = await import('../helpers/gateway.js');
  const { newRequestInfo } = await import('../../src/pipeline/request-info.js');
  const { RequestTelemetry } = await import('../../src/pipeline/telemetry.js');
  const gw = await startGateway({ yaml: 'providers:\n  simulator: {type: simulator}\n', logLevel: 'warn' });
  t.teardown(() => gw.close());
  const target = gw.gateway.router.resolve('simulator/weather');
  const scopeFor = (request: RawChatRequest & ChatRequest) => {
    const info = newRequestInfo('chat_completions', request.stream === true);
    const context = { upstreamModel: target.upstreamModel, signal: new AbortController().signal, requestId: 'r', log: gw.gateway.log as never, ledger: gw.gateway.ledger.forScope('anonymous'), forwardHeaders: {} };
    return { gateway: gw.gateway, context, telemetry: new RequestTelemetry(gw.gateway, info, request, undefined), info };
  };
  return { gw, target, scopeFor };
}
