import t from 'tap';
import { REPAIR_MAX_CHARS } from '../../src/util/bounded-json.js';
import { startOpenAIEmulator, type Reply } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Best-effort work budgets are per gateway key: a key that spends its own (crafted broken arguments)
// gets "busy" for a while, and every other key's repairs go on in the same instant. (They were one gateway-wide bucket: one key degraded everybody.)

const ALPHA = 'tg-alpha-budget-key-0001';
const BETA = 'tg-beta-budget-key-0002';
let reply: (body: { tools?: unknown[] }) => Reply = () => ({ text: 'ok' });
const upstream = await startOpenAIEmulator({ apiKey: 'sk-budget-000', script: (body) => reply(body) });
// The answers here break their tool contract on purpose (arguments no repair reads): handed on with a
// warning (`contract.onViolation: pass`, docs/contract.md) rather than re-asked, so what is reported shows.
const keys = `auth:\n  keys:\n    - {key: "${ALPHA}", name: alpha}\n    - {key: "${BETA}", name: beta}\ncontract:\n  onViolation: pass\n`;
const keyedGateway = () => startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-budget-000' } }, keys), logLevel: 'warn' });
// One gateway per test: each starts with full budgets.
const gw = await keyedGateway();
const answers = await keyedGateway();
t.teardown(async () => {
  await gw.close();
  await answers.close();
  await upstream.close();
});

async function post(path: string, body: unknown, key: string, base = gw.url): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

// Broken (unclosed) but quick to repair, and exactly at the size cap: each costs one worst case of
// the budget (the charge is length², whatever the shape), without making the test slow.
const worstCase = (i: number): string => {
  const head = `{"note": "${i}-`;
  return head + 'x'.repeat(REPAIR_MAX_CHARS - head.length);
};
const TOOLS = [{ type: 'function', function: { name: 'save_note', parameters: { type: 'object', properties: { note: { type: 'string' }, tag: { type: 'string' } } } } }]; // two: a wrapped text goes to _raw

function historyWith(argumentsList: string[]): unknown {
  const calls = argumentsList.map((args, i) => ({ id: `call_${i}`, type: 'function', function: { name: 'save_note', arguments: args } }));
  return {
    model: 'openai/gpt-4o-mini',
    tools: TOOLS,
    messages: [{ role: 'user', content: 'save these' }, { role: 'assistant', content: null, tool_calls: calls }, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'ok' })), { role: 'user', content: 'thanks' }],
  };
}

const kindsOf = (findings: Array<{ kind: string; detail: string }>): string[] => findings.map((f) => f.kind);

t.test('history repair: alpha drains its budget with worst-case arguments, beta is still repaired in the same instant', async (t) => {
  const drained = await post('/v1/toolgate/lint', historyWith(Array.from({ length: 12 }, (_, i) => worstCase(i))), ALPHA);
  t.equal(drained.status, 200);
  const kinds = kindsOf(drained.body.findings);
  const repaired = kinds.filter((k) => k === 'arguments_repaired').length;
  t.ok(repaired >= 2 && repaired <= 3, `a burst of two worst cases (and what refilled meanwhile): ${repaired}`);
  const busy = drained.body.findings.filter((f: { kind: string; detail: string }) => f.kind === 'arguments_wrapped');
  t.ok(busy.length >= 8, `the rest wrapped as busy (${busy.length})`);
  t.match(busy[0].detail, 'repair budget of this gateway key');

  const beta = await post('/v1/toolgate/lint', historyWith([worstCase(100)]), BETA);
  t.same(kindsOf(beta.body.findings), ['arguments_repaired'], "beta's repairs are untouched by alpha's spending");
  const betaChat = await post('/v1/chat/completions', historyWith([worstCase(101)]), BETA);
  t.equal(betaChat.status, 200);
  t.equal(betaChat.headers.get('x-toolgate-repairs'), 'arguments_repaired=1', 'and over the chat route too');

  const alphaAgain = await post('/v1/toolgate/lint', historyWith(Array.from({ length: 12 }, (_, i) => worstCase(200 + i))), ALPHA);
  t.ok(kindsOf(alphaAgain.body.findings).filter((k) => k === 'arguments_wrapped').length >= 8, 'alpha is still busy');
});

t.test("native arguments in the answer are passed on as the model sent them, never repaired; each is reported", async (t) => {
  // The upstream answers with twelve native calls, every one's arguments a broken worst case.
  reply = () => ({ toolCalls: Array.from({ length: 12 }, (_, i) => ({ name: 'save_note', arguments: worstCase(i) })) });
  const ask = { model: 'openai/gpt-4o-mini', tools: TOOLS, messages: [{ role: 'user', content: 'save' }] };
  for (const key of [ALPHA, BETA]) {
    const res = await post('/v1/chat/completions', ask, key, answers.url);
    t.equal(res.status, 200);
    t.same(
      res.body.choices[0].message.tool_calls.map((c: { function: { arguments: string } }) => c.function.arguments),
      Array.from({ length: 12 }, (_, i) => worstCase(i)),
      'byte for byte',
    );
    t.match(res.headers.get('x-toolgate-warnings'), /invalid_tool_arguments=12/);
  }
});

