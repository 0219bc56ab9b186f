import t from 'tap';
import { MemoryCounterStore } from '../../src/auth/counters.js';
import { compileGlob } from '../../src/auth/glob.js';
import { KeyRing, namesOf } from '../../src/auth/keys.js';
import { Limiter } from '../../src/auth/limits.js';
import { configSecrets } from '../../src/config/secrets.js';
import { parseConfig } from '../../src/config/load.js';
import { errors, GatewayError } from '../../src/errors.js';
import { parseJsonBody } from '../../src/http/json-body.js';
import { CircuitBreaker } from '../../src/resilience/breaker.js';
import { TargetGate } from '../../src/resilience/index.js';
import { backoffMs, breakerResult, classify, retryAfterMs } from '../../src/resilience/retry.js';
import type { ResolvedModel } from '../../src/routing/router.js';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as any;

function model(requested: string, provider: string, upstreamModel: string): ResolvedModel {
  return { requested, provider: { settings: { name: provider } } as any, upstreamModel, toolCalling: 'native', fallbacks: [] };
}

t.test('globs: * spans slashes, ? one char, the rest literal', async (t) => {
  t.ok(compileGlob('openai/*').test('openai/gpt-4o-mini'));
  t.ok(compileGlob('hf/*').test('hf/Qwen/Qwen2.5-72B-Instruct:together'));
  t.notOk(compileGlob('openai/*').test('xopenai/gpt'));
  t.ok(compileGlob('gpt-4o-?ini').test('gpt-4o-mini'));
  t.notOk(compileGlob('gpt.4o').test('gpt-4o'), 'dots are literal');
  t.notOk(compileGlob('a+b').test('aab'));
});

t.test('keys: hashed, constant-time lookup, model globs over requested and canonical names', async (t) => {
  const ring = new KeyRing({
    keys: [
      { key: 'tg-alpha-0001', name: 'alpha', models: ['openai/*'] },
      { key: 'tg-beta-00002', name: 'beta', models: ['weather', 'simulator/weather:*'] },
    ],
    metricsKey: 'metrics-key-1',
  });
  t.ok(ring.enabled);
  t.equal(ring.authenticate('Bearer tg-alpha-0001')?.name, 'alpha');
  t.equal(ring.authenticate('bearer   tg-beta-00002 ')?.name, 'beta');
  t.equal(ring.authenticate('Bearer tg-alpha-0002'), undefined);
  t.equal(ring.authenticate('tg-alpha-0001'), undefined, 'no Bearer scheme');
  t.equal(ring.authenticate(undefined), undefined);
  t.equal(ring.authenticate('Bearer '), undefined);
  t.notMatch(JSON.stringify(ring), /tg-alpha-0001/, 'the key is not kept in clear');
  const alpha = ring.byName('alpha')!;
  t.ok(alpha.allows(model('gpt-4o-mini', 'openai', 'gpt-4o-mini')), 'friendly name admitted by its provider/model');
  t.ok(alpha.allows(model('openai/gpt-4o', 'openai', 'gpt-4o')));
  t.notOk(alpha.allows(model('hf/x', 'hf', 'x')));
  const beta = ring.byName('beta')!;
  t.ok(beta.allows(model('weather', 'simulator', 'weather')));
  t.notOk(beta.allows(model('simulator/weather', 'simulator', 'weather')), 'a friendly glob admits the friendly name only');
  t.ok(beta.allows(model('simulator/weather:hermes', 'simulator', 'weather:hermes')));
  t.same(namesOf(model('openai/x', 'openai', 'x')), ['openai/x']);
  t.ok(ring.metricsAllowed('Bearer metrics-key-1'));
  t.notOk(ring.metricsAllowed('Bearer tg-alpha-0001'));
  t.notOk(new KeyRing({ keys: [] }).enabled);
  t.ok(new KeyRing({ keys: [] }).metricsAllowed(undefined), 'no metrics key: /metrics open');
});

t.test('config: auth, limits, state, retry and breaker are validated; secrets listed', async (t) => {
  const loaded = parseConfig(
    `auth:\n  keys:\n    - {key: "\${K1}", name: a, models: ["openai/*"], requestsPerMinute: 3}\n  metricsKey: "\${MK}"\nstate:\n  type: redis\n  url: redis://:p%40ss@127.0.0.1:6390/0\nproviders:\n  s: {type: simulator, retry: {maxAttempts: 3}}\n`,
    { K1: 'tg-secret-key-1', MK: 'metrics-secret' },
  );
  t.equal(loaded.config.auth.keys[0].requestsPerMinute, 3);
  t.same(loaded.config.providers.s.retry, { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 5000 });
  t.same(loaded.config.providers.s.circuitBreaker, { failureThreshold: 5, cooldownMs: 30000 });
  t.same(loaded.config.limits, { maxMessages: 4096, maxTools: 512, maxDepth: 64, maxStringLength: 0 });
  t.same(configSecrets(loaded.config).sort(), [':p%40ss@', 'metrics-secret', 'p%40ss', 'p@ss', 'tg-secret-key-1'].sort());
  t.throws(() => parseConfig(`auth:\n  keys:\n    - {key: "\${UNSET}", name: a}\nproviders: {s: {type: simulator}}\n`, {}), /auth\.keys\.0\.key/);
  t.throws(() => parseConfig(`auth:\n  keys:\n    - {key: k1234567, name: a}\n    - {key: k1234567, name: a}\nproviders: {s: {type: simulator}}\n`, {}), /duplicate key name/);
  t.throws(() => parseConfig(`state: {type: redis}\nproviders: {s: {type: simulator}}\n`, {}), /state\.url/);
});

t.test('circuit breaker: opens after N failures, half-open lets one trial through', async (t) => {
  let now = 0;
  const states: string[] = [];
  const breaker = new CircuitBreaker('p', { failureThreshold: 3, cooldownMs: 1000, now: () => now, onStateChange: (s) => states.push(s) });
  for (let i = 0; i < 2; i++) breaker.acquire()!.report('failure');
  breaker.acquire()!.report('success');
  for (let i = 0; i < 2; i++) breaker.acquire()!.report('failure');
  t.equal(breaker.state, 'closed', 'a success resets the count');
  breaker.acquire()!.report('neutral');
  breaker.acquire()!.report('failure');
  t.equal(breaker.state, 'open');
  t.equal(breaker.acquire(), undefined);
  t.notOk(breaker.canAttempt());
  t.equal(breaker.retryAfterSeconds(), 1);
  now = 1000;
  t.equal(breaker.state, 'half-open');
  const trial = breaker.acquire()!;
  t.ok(trial);
  t.equal(breaker.acquire(), undefined, 'one trial at a time');
  trial.report('failure');
  t.equal(breaker.state, 'open', 'failed trial reopens');
  now = 2000;
  const trial2 = breaker.acquire()!;
  trial2.report('neutral');
  const trial3 = breaker.acquire()!;
  t.ok(trial3, 'a neutral trial frees the slot');
  trial3.report('success');
  trial3.report('failure');
  t.equal(breaker.state, 'closed', 'reports after the first are ignored');
  t.same(states, ['open', 'half-open', 'open', 'half-open', 'closed']);
  // a trial nobody reports stops blocking after one cool-down
  for (let i = 0; i < 3; i++) breaker.acquire()!.report('failure');
  now = 4000;
  t.ok(breaker.acquire());
  t.equal(breaker.acquire(), undefined);
  now = 5001;
  t.ok(breaker.acquire(), 'stale trial released');
});

// A stream holds its permits until it ends: each was an object with a closure (and its scope) per
// breaker and one more for the target; now small objects whose report is one shared method.
t.test('permits share their report function: no closure per call', async (t) => {
  const breaker = new CircuitBreaker('p', { failureThreshold: 3, cooldownMs: 1000 });
  const [a, b] = [breaker.acquire()!, breaker.acquire()!];
  t.equal(a.report, b.report, 'breaker permits: one report function');
  const gate = new TargetGate(new CircuitBreaker('p', { failureThreshold: 3, cooldownMs: 1000 }), breaker);
  const [c, d] = [gate.acquire()!, gate.acquire()!];
  t.equal(c.report, d.report, 'target permits: one report function');
  d.report('failure');
  d.report('failure');
  a.report('failure');
  t.equal(breaker.state, 'closed', 'each permit reports once');
  c.report('failure');
  t.equal(breaker.state, 'open', 'the third failure opens the model breaker');
  t.equal(gate.provider.state, 'closed', 'a model-scoped failure is neutral for the provider');
});

t.test('retry classification, retry-after and backoff', async (t) => {
  const unreachable = errors.upstreamUnreachable('p', 'ECONNRESET');
  t.same(classify(unreachable), { retryable: true, fallbackable: true });
  t.same(classify(errors.upstreamTimeout('p', 10)), { retryable: false, fallbackable: true });
  t.same(classify(errors.streamIdleTimeout('p', 10)), { retryable: false, fallbackable: true });
  t.same(classify(errors.upstreamStatus(503, 'x')), { retryable: true, fallbackable: true });
  t.same(classify(errors.upstreamStatus(504, 'x', null, 'gateway_timeout')), { retryable: true, fallbackable: true }, "an upstream's own 504 is retried");
  t.same(classify(errors.upstreamStatus(400, 'x')), { retryable: false, fallbackable: false });
  t.same(classify(errors.notImplemented('x')), { retryable: false, fallbackable: false });
  t.same(classify(new Error('bug')), { retryable: false, fallbackable: false });
  t.equal(breakerResult('rate_limited'), 'neutral');
  t.equal(breakerResult('error_5xx'), 'failure');

  const limited = new GatewayError(429, 'rate_limit_error', 'slow down', { headers: { 'retry-after': '2' } });
  t.equal(retryAfterMs(limited), 2000);
  t.equal(retryAfterMs(new GatewayError(429, 'x', 'y', { headers: { 'retry-after-ms': '150' } })), 150);
  t.equal(retryAfterMs(new GatewayError(429, 'x', 'y', { headers: { 'retry-after': new Date(10_000).toUTCString() } }), 7_000), 3000);
  t.equal(retryAfterMs(new GatewayError(429, 'x', 'y', { headers: { 'retry-after': 'soon' } })), undefined);

  const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 5000 };
  t.equal(backoffMs(1, policy, unreachable, () => 0), 50);
  t.equal(backoffMs(2, policy, unreachable, () => 1), 200);
  t.equal(backoffMs(3, policy, unreachable, () => 1), undefined, 'attempts exhausted');
  t.equal(backoffMs(1, policy, limited, () => 0), 2000, 'retry-after is the minimum wait');
  t.equal(backoffMs(1, { ...policy, maxDelayMs: 1000 }, limited, () => 0), undefined, 'retry-after above the cap: no retry here');
  t.equal(backoffMs(10, { maxAttempts: 20, baseDelayMs: 100, maxDelayMs: 1000 }, unreachable, () => 1), 1000, 'capped');
});

t.test('limiter: requests, tokens and budget windows; store outage per failMode', async (t) => {
  let now = Date.UTC(2025, 0, 1, 12, 0, 30);
  const store = new MemoryCounterStore(() => now);
  const limiter = new Limiter({ store, failMode: 'open', log: silent, now: () => now });
  const key = { name: 'k', requestsPerMinute: 2, tokensPerMinute: 100, dailyBudgetUsd: 1, allows: () => true };
  await limiter.admit(key);
  await limiter.admit(key);
  const third = await limiter.admit(key).catch((e) => e);
  t.equal(third.status, 429);
  t.equal(third.code, 'rate_limit_exceeded');
  t.equal(third.headers['retry-after'], '30');
  now += 30_000;
  await limiter.admit(key);
  await limiter.addTokens(key, 100);
  const tokens = await limiter.admit(key).catch((e) => e);
  t.match(tokens.message, /100 tokens per minute/);
  now += 60_000;
  await limiter.addCost('k', 0.6);
  await limiter.admit(key);
  await limiter.addCost('k', 0.5);
  const budget = await limiter.admit(key).catch((e) => e);
  t.equal(budget.code, 'budget_exceeded');
  t.equal(Number(budget.headers['retry-after']), 86_400 - (12 * 3600 + 120), 'until 00:00 UTC');

  const broken = { add: async () => Promise.reject(new Error('down')), get: async () => Promise.reject(new Error('down')) };
  const warnings: unknown[] = [];
  const open = new Limiter({ store: broken, failMode: 'open', log: { ...silent, warn: (o: unknown) => warnings.push(o) } });
  await open.admit(key);
  await open.addTokens(key, 5);
  t.equal(warnings.length, 1, 'warned once, not per call');
  const closed = new Limiter({ store: broken, failMode: 'closed', log: silent });
  const refused = await closed.admit(key).catch((e) => e);
  t.equal(refused.status, 503);
  t.equal(refused.code, 'state_unavailable');
});

t.test('JSON bodies: depth, string length, reserved keys, deep nesting without stack overflow', async (t) => {
  const limits = { maxDepth: 8, maxStringLength: 10 };
  t.same(parseJsonBody('{"a":[1,{"b":"ok"}]}', limits), { a: [1, { b: 'ok' }] });
  t.equal(parseJsonBody('  ', limits), undefined);
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.same(parseJsonBody(deep(8), limits), JSON.parse(deep(8)));
  t.throws(() => parseJsonBody(deep(9), limits), { code: 'invalid_body', status: 400 });
  t.throws(() => parseJsonBody(deep(200_000), { maxDepth: 64, maxStringLength: 0 }), { code: 'invalid_body' });
  t.throws(() => parseJsonBody('{"a":"12345678901"}', limits), { code: 'string_above_max_length' });
  t.throws(() => parseJsonBody('{"12345678901":1}', limits), { code: 'string_above_max_length' });
  t.same(parseJsonBody('{"a":"12345678901"}', { maxDepth: 8, maxStringLength: 0 }), { a: '12345678901' }, '0 = no string limit');
  t.throws(() => parseJsonBody('{"a":{"__proto__":{"polluted":1}}}', limits), { code: 'invalid_body' });
  t.throws(() => parseJsonBody('{"\\u005f_proto__":{}}', limits), { code: 'invalid_body' }, 'escaped spelling too');
  t.throws(() => parseJsonBody('{"constructor":{"prototype":{"x":1}}}', limits), { code: 'invalid_body' });
  t.same(parseJsonBody('{"constructor":"fine"}', { maxDepth: 8, maxStringLength: 0 }), { constructor: 'fine' });
  t.throws(() => parseJsonBody('{"model": ', limits), { code: 'invalid_json', status: 400 });
  t.equal(({} as any).polluted, undefined);
});
