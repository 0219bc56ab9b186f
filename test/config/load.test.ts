import t, { type Test } from 'tap';
import { ConfigError, interpolate, parseConfig } from '../../src/config/load.js';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { startupSummary } from '../../src/auth/startup.js';
import { createLogger } from '../../src/logging.js';
import { maskUrl } from '../../src/config/secrets.js';

t.test('interpolation: ${VAR}, ${VAR:-default}, unset and empty', async (t) => {
  const env = { A: 'x', EMPTY: '' };
  t.equal(interpolate('${A}', env), 'x');
  t.equal(interpolate('${MISSING}', env), '');
  t.equal(interpolate('${MISSING:-fallback}', env), 'fallback');
  t.equal(interpolate('${EMPTY:-fallback}', env), 'fallback');
  t.equal(interpolate('pre-${A}-post ${B:-b}', env), 'pre-x-post b');
  t.equal(interpolate('${A:-http://h:1/v1}', {}), 'http://h:1/v1');
});

t.test('the shipped config loads with no environment and names key env vars', async (t) => {
  const text = readFileSync(new URL('../../config/gateway.yaml', import.meta.url), 'utf8');
  const loaded = parseConfig(text, {});
  const { providers } = loaded.config;
  t.same(Object.keys(providers).sort(), ['gemini', 'hf', 'openai', 'simulator', 'together']);
  t.equal(providers.openai.baseUrl, 'https://api.openai.com/v1');
  t.equal(providers.hf.baseUrl, 'https://router.huggingface.co/v1');
  t.equal(providers.together.baseUrl, 'https://api.together.xyz/v1');
  t.equal(providers.gemini.baseUrl, 'https://generativelanguage.googleapis.com/v1beta');
  t.equal(providers.openai.apiKey, '');
  t.equal(providers.openai.timeoutMs, 600000);
  t.equal(providers.openai.streamIdleTimeoutMs, 120000);
  t.equal(providers.openai.maxResponseBytes, 32 * 1024 * 1024, 'one JSON answer: 32 MiB');
  t.equal(providers.openai.maxEventBytes, 32 * 1024 * 1024, 'one stream event: 32 MiB');
  t.same(loaded.keyEnvVars, { openai: 'OPENAI_API_KEY', hf: 'HF_TOKEN', together: 'TOGETHER_API_KEY', gemini: 'GEMINI_API_KEY' });
  t.same(loaded.secrets, []);

  const withEnv = parseConfig(text, { OPENAI_API_KEY: 'sk-test-123', HF_BASE_URL: 'http://127.0.0.1:9/v1' });
  t.equal(withEnv.config.providers.openai.apiKey, 'sk-test-123');
  t.equal(withEnv.config.providers.hf.baseUrl, 'http://127.0.0.1:9/v1');
  t.same(withEnv.secrets, ['sk-test-123']);
});

t.test('a bad file fails with a message naming the field', async (t) => {
  const bad = (yaml: string) => {
    try {
      parseConfig(yaml, {});
    } catch (error) {
      t.type(error, ConfigError);
      return (error as Error).message;
    }
    t.fail('expected a ConfigError');
    return '';
  };
  t.match(bad('providers:\n  x:\n    type: nope\n'), /providers\.x\.type/);
  t.match(bad('providers:\n  x:\n    type: openai\n'), /providers\.x\.baseUrl/);
  t.match(bad('providers:\n  x:\n    type: openai\n    baseUrl: http://a\n    timeoutMs: -1\n'), /providers\.x\.timeoutMs/);
  t.match(bad('providers:\n  s:\n    type: simulator\nmodels:\n  m:\n    provider: missing\n    model: a\n'), /models\.m\.provider: unknown provider 'missing'/);
  t.match(bad('providers: {}\nunknownField: 1\n'), /unknownField|Unrecognized key/);
  t.match(bad('providers:\n  s:\n    type: simulator\nmodels:\n  m:\n    provider: s\n    model: a\n    toolCalling: maybe\n'), /models\.m\.toolCalling/);
  t.match(bad(': : :\n  - ['), /not valid YAML/);
});

t.test('models carry toolCalling, pricing and fallbacks; toolAliases map', async (t) => {
  const loaded = parseConfig(
    `providers:\n  s:\n    type: simulator\nmodels:\n  a:\n    provider: s\n    model: weather\n    toolCalling: prompt\n    pricing: {inputPerMTok: 1.5, outputPerMTok: 2}\n    fallbacks: [b]\n  b:\n    provider: s\n    model: weather\ntoolAliases:\n  tool_search_procedure: search_procedure\n`,
    {},
  );
  t.same(loaded.config.models.a, { provider: 's', model: 'weather', toolCalling: 'prompt', reasoning: 'content', textCalls: 'auto', pricing: { inputPerMTok: 1.5, outputPerMTok: 2 }, fallbacks: ['b'] });
  t.same(loaded.config.toolAliases, { tool_search_procedure: 'search_procedure' });
});

// Issue 14 §6: numbers from the environment, fallbacks that name nothing, passwords in URLs.

const expectConfigError = (t: Test, yaml: string, env: Record<string, string> = {}): string => {
  try {
    parseConfig(yaml, env);
  } catch (error) {
    t.type(error, ConfigError);
    return (error as Error).message;
  }
  t.fail('expected a ConfigError');
  return '';
};

t.test('numeric and boolean fields can come from ${VAR}', async (t) => {
  const yaml = `server:\n  port: \${PORT}\n  bodyLimitBytes: \${BODY_LIMIT:-1048576}\nproviders:\n  s:\n    type: simulator\n  o:\n    type: openai\n    baseUrl: http://127.0.0.1:9/v1\n    timeoutMs: \${TIMEOUT}\n    maxConnections: \${MAXCONN}\n    retry:\n      maxAttempts: \${ATTEMPTS}\nrepair:\n  textToolCalls: \${TEXT_CALLS}\n`;
  const loaded = parseConfig(yaml, { PORT: '9090', TIMEOUT: ' 30000 ', MAXCONN: '16', ATTEMPTS: '3', TEXT_CALLS: 'false' });
  t.equal(loaded.config.server.port, 9090);
  t.equal(loaded.config.server.bodyLimitBytes, 1048576, 'the default after :- too');
  t.equal(loaded.config.providers.o.timeoutMs, 30000);
  t.equal(loaded.config.providers.o.maxConnections, 16, 'a nullable number');
  t.equal(loaded.config.providers.o.retry.maxAttempts, 3, 'nested');
  t.equal(loaded.config.repair.textToolCalls, false);

  t.match(expectConfigError(t, yaml, { PORT: 'eighty', TIMEOUT: '1', MAXCONN: '1', ATTEMPTS: '1', TEXT_CALLS: 'true' }), /server\.port: expected a number, got "eighty"/);
  t.match(expectConfigError(t, yaml, { PORT: '1', TIMEOUT: '1', MAXCONN: '1', ATTEMPTS: '1' }), /repair\.textToolCalls: expected a boolean, got "" \(is its environment variable set\?\)/);
  t.match(expectConfigError(t, yaml, { PORT: '1', TIMEOUT: '-5', MAXCONN: '1', ATTEMPTS: '1', TEXT_CALLS: 'true' }), /providers\.o\.timeoutMs/, 'converted numbers are still validated');
  t.equal(parseConfig('providers:\n  k:\n    type: openai\n    baseUrl: http://h/v1\n    apiKey: ${KEY}\n', { KEY: '12345678' }).config.providers.k.apiKey, '12345678', 'text fields stay text');
});

t.test('a fallback naming an unknown model fails naming the field', async (t) => {
  const config = (fallbacks: string) => `providers:\n  s:\n    type: simulator\nmodels:\n  a:\n    provider: s\n    model: weather\n    fallbacks: [${fallbacks}]\n  b:\n    provider: s\n    model: weather\n`;
  t.match(expectConfigError(t, config('b, nope')), /models\.a\.fallbacks\.1: unknown model 'nope'/);
  t.match(expectConfigError(t, config('other/x')), /models\.a\.fallbacks\.0: unknown model 'other\/x'/, 'an unknown provider');
  t.same(parseConfig(config('b, s/other-id'), {}).config.models.a.fallbacks, ['b', 's/other-id'], 'configured names and <provider>/<model> load');
});

t.test('a password in a provider baseUrl is a secret: scrubbed from logs, masked in the startup summary', async (t) => {
  const loaded = parseConfig('providers:\n  p:\n    type: openai-compatible\n    baseUrl: http://bob:hunter2@10.0.0.1:8000/v1\n  q:\n    type: openai-compatible\n    baseUrl: http://amy:p%40ss@10.0.0.2/v1\n', {});
  t.ok(loaded.secrets.includes('hunter2'));
  t.ok(loaded.secrets.includes('p@ss') && loaded.secrets.includes('p%40ss'), 'encoded and decoded');

  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ level: 'info', secrets: loaded.secrets, destination: sink });
  logger.info({ baseUrl: loaded.config.providers.p.baseUrl, ...startupSummary(loaded.config) }, `upstream ${loaded.config.providers.q.baseUrl} failed`);
  await new Promise((resolve) => setImmediate(resolve));
  const output = lines.join('');
  t.notMatch(output, /hunter2|p@ss|p%40ss/, 'no password in the log');
  t.match(output, /10\.0\.0\.1:8000/, 'the host is still there');

  const summary = JSON.stringify(startupSummary(loaded.config));
  t.notMatch(summary, /hunter2|p%40ss/);
  t.match(summary, /http:\/\/bob:\*\*\*@10\.0\.0\.1:8000\/v1/);
  t.equal(maskUrl('https://api.example.com/v1'), 'https://api.example.com/v1', 'no password: unchanged');
});
