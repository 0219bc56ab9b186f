import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { startGeminiEmulator } from '../emulators/gemini-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { messageProblems } from './shapes.js';

// A broken Messages history, the kind proxies in front of open models report from Claude Code and
// hand-rolled agents: an empty text block beside tool_use, a bare string and an untyped
// tool_result in a block list, a tool_result for a call that is not there, a call without its
// result, and Anthropic ids (toolu_…) on an upstream that only takes 9-character ids. The
// emulators refuse every one of these the way the real APIs do; through toolgate the SDK gets an
// answer, and the findings are in x-toolgate-repairs and toolgate_repairs_total.

const WEATHER: Anthropic.Tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const broken = [
  { role: 'user', content: 'Weather in Paris and Lyon?' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'toolu_01B8xqpW7cd9pXQ2bV6aC3eF', name: 'get_weather', input: { city: 'Lyon' } },
    ],
  },
  {
    role: 'user',
    content: [
      { tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"temperature_c": 21}' },
      { type: 'tool_result', tool_use_id: 'toolu_0199missing', content: 'a result for a call nobody made' },
      'and what should I wear?',
    ],
  },
] as unknown as Anthropic.MessageParam[];

t.test('a broken history is repaired on every upstream', async (t) => {
  const oa = await startOpenAIEmulator({ apiKey: 'sk-up' });
  const gemini = await startGeminiEmulator();
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: oa.url, apiKey: 'sk-up' }, gem: { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: gemini.apiKey } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await oa.close();
    await gemini.close();
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });

  for (const model of ['up/Qwen/Qwen2.5-72B-Instruct', 'up/mistralai/Mistral-Small-3.1', 'gem/gemini-2.5-flash']) {
    for (const stream of [false, true]) {
      const request = { model, max_tokens: 200, tools: [WEATHER], messages: broken };
      const { data, response } = stream ? await client.messages.stream(request).withResponse() : await client.messages.create(request).withResponse();
      const message = stream ? await (data as unknown as ReturnType<Anthropic['messages']['stream']>).finalMessage() : (data as Anthropic.Message);
      t.same(messageProblems(message), [], `${model} stream=${stream}: answered`);
      const repairs = response.headers.get('x-toolgate-repairs') ?? '';
      // The bare string and the untyped tool_result are two blocks typed.
      const expected = { empty_text_removed: 1, block_type_inferred: 2, orphan_tool_result: 1, missing_tool_result: 1 };
      for (const [kind, count] of Object.entries(expected)) t.match(repairs, new RegExp(`\\b${kind}=${count}\\b`), `${model} stream=${stream}: ${kind}`);
    }
  }
  const mistral = oa.requests.filter((r) => String(r.body?.model).startsWith('mistralai/')).pop()?.body;
  const ids = mistral.messages.flatMap((m: any) => [...(m.tool_calls ?? []).map((c: any) => c.id), ...(m.tool_call_id ? [m.tool_call_id] : [])]);
  t.ok(ids.length >= 4 && ids.every((id: string) => /^[a-zA-Z0-9]{9}$/.test(id)), `Mistral got ids it accepts: ${ids.join(', ')}`);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_repairs_total\{kind="empty_text_removed"\} 6/, 'the dialect findings are counted');
  t.match(metrics, /toolgate_requests_total\{endpoint="messages",status="200"\} 6/, 'requests counted under endpoint="messages"');
});

t.test('strict mode refuses what it would repair, in Anthropic’s shape', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'repair:\n  mode: strict\n'), logLevel: 'silent' });
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'simulator/weather', max_tokens: 50, messages: broken }) });
  t.equal(response.status, 400);
  const body: any = await response.json();
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /empty_text_removed/);
});

t.test('a pass can be disabled', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'repair:\n  disabled: [block-shapes]\n'), logLevel: 'silent' });
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'simulator/weather', max_tokens: 50, messages: broken }) });
  t.equal(response.status, 400, 'untyped blocks are refused, as Anthropic does');
  t.match(((await response.json()) as any).error.message, /messages\[2\]\.content/);
});

t.test('the inspector records Messages requests with their dialect repairs', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n'), logLevel: 'silent' });
  t.teardown(() => gw.close());
  const request = { model: 'simulator/weather', max_tokens: 50, tools: [WEATHER], messages: broken };
  t.equal((await fetch(`${gw.url}/v1/messages`, { method: 'POST', body: JSON.stringify(request) })).status, 200);
  const list: any = await (await fetch(`${gw.url}/v1/toolgate/requests`)).json();
  const record = list.data.find((r: any) => r.endpoint === 'messages');
  t.ok(record, 'a record with endpoint messages');
  t.ok(record?.repairs >= 5, `its repairs counted (${String(record?.repairs)})`);
  t.equal(record?.model, 'simulator/weather');
});
