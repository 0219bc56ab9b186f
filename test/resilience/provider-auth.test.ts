import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { asProviderFailure, classifyFailure } from '../../src/resilience/failures.js';
import { errors } from '../../src/errors.js';

// A provider's 401/403 is about the gateway's own key: a 502 the client can read as "not yours to
// fix", naming the provider, never the key (not even the masked part a provider quotes).

const OPERATOR_KEY = 'sk-proj-operatorkey-0123456789abcdef';

t.test("the provider refuses the gateway's key: 502 upstream_auth_failed, provider named, key redacted", async (t) => {
  const upstream = await startOpenAIEmulator({ apiKey: 'sk-the-right-one' });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: OPERATOR_KEY } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  for (const stream of [false, true]) {
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream }),
    });
    const text = await res.text();
    t.equal(res.status, 502, `stream: ${stream}`);
    const { error } = JSON.parse(text) as { error: { type: string; code: string; message: string } };
    t.match(error, { type: 'upstream_error', code: 'upstream_auth_failed', message: /Provider 'up' refused the gateway's credentials \(HTTP 401\)/ });
    for (const part of [OPERATOR_KEY, OPERATOR_KEY.slice(0, 8), OPERATOR_KEY.slice(-4)]) t.notOk(text.includes(part), `no "${part}" in the answer`);
  }
});

t.test('403 too; other statuses and kinds are left alone; the row falls back, never retries', async (t) => {
  const forbidden = asProviderFailure(errors.upstreamStatus(403, 'Project does not have access to model gpt-5 (key sk-abc123def456ghi789).'), 'openai');
  t.match(forbidden, { status: 502, code: 'upstream_auth_failed', message: /\(HTTP 403\): Project does not have access to model gpt-5 \(key \[REDACTED\]\)\./ });
  const row = classifyFailure(forbidden);
  t.match(row, { row: 'upstream_auth', retryable: false, fallbackable: true, logLevel: 'error' });
  const client = errors.invalidApiKey();
  t.equal(asProviderFailure(client, 'openai'), client, "the gateway's own 401 (a client's key) stays a 401");
  const badRequest = errors.upstreamStatus(400, 'bad');
  t.equal(asProviderFailure(badRequest, 'openai'), badRequest);
});
