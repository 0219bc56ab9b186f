import t from 'tap';
import { ANONYMOUS_SCOPE } from '../../src/util/scope.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Issue 14, client input over HTTP: each limit is a 400 naming it, before anything goes upstream;
// lint repairs once. (The cross-cutting adversarial suite with 200 KB payloads lives elsewhere.)

const upstream = await startOpenAIEmulator({ apiKey: 'sk-limits-000' });
const models = 'models:\n  prompted:\n    provider: openai\n    model: gpt-4o-mini\n    toolCalling: prompt\n';
const gw = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-limits-000' } }, models) });
const strict = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-limits-000' } }, 'repair:\n  mode: strict\n') });
t.teardown(async () => {
  await gw.close();
  await strict.close();
  await upstream.close();
});

async function post(path: string, body: unknown, base = gw.url): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const call = (args: string) => ({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] });

t.test('400s naming the limit, nothing sent upstream', async (t) => {
  const before = upstream.requests.length;
  const cases: Array<[string, unknown, string, string | null]> = [
    ['parameters: "oops"', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: 'oops' } }] }, 'invalid_tool_parameters', 'tools[0].function.parameters'],
    ['a 300-character tool name', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'n'.repeat(300) } }] }, 'tool_name_too_long', 'tools[0].function.name'],
    ['a 160 KB model name', { model: `hf/${'llama'.repeat(32_000)}`, messages: [{ role: 'user', content: 'hi' }] }, 'model_name_too_long', 'model'],
    [
      '20k-deep arguments on a prompt-mode model (was a 500)',
      { model: 'prompted', messages: [{ role: 'user', content: 'hi' }, call(`{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`), { role: 'tool', tool_call_id: 'c1', content: 'ok' }] },
      'arguments_too_deep',
      null,
    ],
  ];
  for (const [label, body, code, param] of cases) {
    const res = await post('/v1/chat/completions', body);
    t.equal(res.status, 400, label);
    t.equal(res.body.error.code, code, label);
    t.equal(res.body.error.param, param, label);
    t.match(res.body.error.message, /limit of \d+|expected a JSON schema object/, `${label}: the message says what is allowed`);
  }
  t.equal(upstream.requests.length, before, 'no upstream call');
});

t.test('lint runs the repair once, and its strict verdict is what strict mode answers', async (t) => {
  const body = {
    model: 'openai/gpt-4o-mini',
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    messages: [{ role: 'user', content: 'x' }, call("{'city': 'Oslo'"), { role: 'user', content: 'and?' }],
  };
  const repairs = gw.gateway.workBudgets.forScope(ANONYMOUS_SCOPE).repair;
  const before = repairs.charsRepaired;
  const lint = await post('/v1/toolgate/lint', body);
  t.equal(lint.status, 200);
  t.equal(repairs.charsRepaired - before, "{'city': 'Oslo'".length, 'jsonrepair ran once');
  const refused = await post('/v1/chat/completions', body, strict.url);
  t.equal(refused.status, 400);
  t.equal(lint.body.strict_mode_error, refused.body.error.message);
  const clean = await post('/v1/toolgate/lint', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(clean.body.strict_mode_error, null);
});

t.test("lint on the issue's 250 KB of 'a'a'a… arguments: wrapped with the reason, jsonrepair never called", async (t) => {
  const repairs = gw.gateway.workBudgets.forScope(ANONYMOUS_SCOPE).repair;
  const before = repairs.charsRepaired;
  const huge = "'a".repeat(125_000);
  const lint = await post('/v1/toolgate/lint', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }, call(huge), { role: 'tool', tool_call_id: 'c1', content: 'ok' }] });
  t.equal(lint.status, 200);
  const wrapped = lint.body.findings.find((f: { kind: string }) => f.kind === 'arguments_wrapped');
  t.match(wrapped?.detail, 'over the repair limit');
  t.same(JSON.parse(lint.body.repaired_request.messages[1].tool_calls[0].function.arguments), { raw_arguments: huge });
  t.equal(repairs.charsRepaired, before);
});
