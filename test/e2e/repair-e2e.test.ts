import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { WEATHER_TOOL } from '../helpers/tool-loop.js';

// The Hugging Face incident end to end: the client serialized only role and content, so the
// assistant message lost its tool_calls and the tool message its tool_call_id. The strict OpenAI
// emulator would answer 400; through toolgate the upstream receives the original call and id.

const upstream = await startOpenAIEmulator({ apiKey: 'sk-ledger-test-000' });
const gw = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-ledger-test-000' } }) });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});
const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'x', maxRetries: 0 });

for (const stream of [false, true]) {
  t.test(`stripped history is restored from the call ledger (first call ${stream ? 'streamed' : 'JSON'})`, async (t) => {
    const messages: any[] = [
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'user', content: `Weather in Madrid? (${stream})` },
    ];
    let call: { id: string; function: { name: string; arguments: string } };
    if (stream) {
      const chunks = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, tools: [WEATHER_TOOL], stream: true });
      const parts = { id: '', name: '', args: '' };
      for await (const chunk of chunks) {
        for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
          if (d.id) parts.id = d.id;
          parts.name += d.function?.name ?? '';
          parts.args += d.function?.arguments ?? '';
        }
      }
      call = { id: parts.id, function: { name: parts.name, arguments: parts.args } };
    } else {
      const first = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, tools: [WEATHER_TOOL] });
      call = first.choices[0].message.tool_calls![0] as any;
    }
    t.ok(call.id, 'the gateway answered with a tool call');

    // What the broken client sends back: role + content only.
    const broken = [...messages, { role: 'assistant', content: '' }, { role: 'tool', content: '{"temp_c": 31}' }];
    const before = upstream.requests.length;
    const { data, response } = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: broken as any, tools: [WEATHER_TOOL] }).withResponse();
    t.match(data.choices[0].message.content, /31/);
    t.match(response.headers.get('x-toolgate-repairs') ?? '', /restored_tool_calls=1/);
    const received = upstream.requests[before].body;
    t.same(received.messages[2].tool_calls, [{ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }], 'the original call: same id, name, arguments');
    t.equal(received.messages[3].tool_call_id, call.id, 'the tool result got the matching id');
    t.equal(received.messages[3].content, '{"temp_c": 31}');
  });
}

t.test('without toolgate the same broken history is a 400 from the strict upstream', async (t) => {
  const direct = new OpenAI({ baseURL: upstream.url, apiKey: 'sk-ledger-test-000', maxRetries: 0 });
  const broken = [
    { role: 'user', content: 'Weather in Madrid?' },
    { role: 'assistant', content: '' },
    { role: 'tool', content: '{"temp_c": 31}' },
  ];
  await t.rejects(direct.chat.completions.create({ model: 'gpt-4o-mini', messages: broken as any, tools: [WEATHER_TOOL] }), { status: 400 } as any);
});

t.test('a valid history passes unchanged and gets no repairs header', async (t) => {
  const { response } = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  t.equal(response.headers.get('x-toolgate-repairs'), null);
});

t.test('POST /v1/toolgate/lint reports findings and the repaired request without calling upstream', async (t) => {
  const before = upstream.requests.length;
  const res = await fetch(`${gw.url}/v1/toolgate/lint`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'openai/gpt-4o-mini',
      functions: [{ name: 'get_weather', parameters: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } }] },
        { role: 'user', content: 'and?' },
      ],
    }),
  });
  t.equal(res.status, 200);
  const body: any = await res.json();
  t.equal(body.valid, false);
  const kinds = body.findings.map((f: any) => f.kind);
  t.ok(kinds.includes('tool_definition_converted'), 'legacy functions converted');
  t.ok(kinds.includes('arguments_stringified'), 'object arguments');
  t.ok(kinds.includes('missing_tool_result'), 'unanswered call');
  t.type(body.strict_mode_error, 'string', 'what strict mode would say');
  t.equal(body.repaired_request.tools[0].function.name, 'get_weather');
  t.equal(upstream.requests.length, before, 'no upstream call');
});

t.test('repair.mode strict rejects with a 400 listing every problem', async (t) => {
  const strict = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-ledger-test-000' } }, 'repair:\n  mode: strict\n') });
  t.teardown(() => strict.close());
  const res = await fetch(`${strict.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{' } }] },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    }),
  });
  t.equal(res.status, 400);
  const body: any = await res.json();
  t.equal(body.error.code, 'invalid_tool_history');
  t.match(body.error.message, /arguments/);
  t.match(body.error.message, /missing_tool_result|no result/i);
});
