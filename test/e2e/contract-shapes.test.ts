import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { CORRECTIVE, isReask, readChatStream, sseData, TOOLS } from '../helpers/contract-rows.js';

// Issue 45 item 5: every call shape is judged as a call by the tool contract (docs/contract.md):
// the legacy `functions` + `function_call` protocol, OpenAI `custom` tools on chat (beside a
// function whose name must be encoded too), and the Responses `allowed_tools` tool_choice through
// the Responses → chat bridge. JSON and streams; the upstream is the strict OpenAI emulator (it
// refuses what api.openai.com refuses, such as an assistant message with neither content nor calls).

type Answer = { calls?: Array<Record<string, unknown>>; text?: string };
let script: (body: any) => Answer = () => ({ text: 'hi' });

const COMPLETION = { id: 'chatcmpl-shapes', object: 'chat.completion', created: 1, model: 'm' };
const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) => {
    const answer = script(body);
    const calls = answer.calls ?? [];
    const message = { role: 'assistant', content: answer.text ?? null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    if (body.stream !== true) return { raw: { status: 200, body: { ...COMPLETION, choices: [{ index: 0, message, finish_reason: finish }] } } };
    const chunk = (delta: object, finishReason: string | null) => `data: ${JSON.stringify({ ...COMPLETION, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    let sse = chunk({ role: 'assistant', content: answer.text ?? '' }, null);
    calls.forEach((call, index) => (sse += chunk({ tool_calls: [{ index, ...call }] }, null)));
    sse += chunk({}, finish) + 'data: [DONE]\n\n';
    return { raw: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse } };
  },
});
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'models:\n  agent:\n    provider: up\n    model: gpt-x\n'), logLevel: 'warn' });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const fnCall = (name: string, args: object, id = `call_${name.replace(/\W/g, '')}0123456789abcdef`) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const chatRequests = (before: number) => upstream.requests.slice(before).filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);

const FUNCTIONS = TOOLS.map((tool) => tool.function);

for (const stream of [false, true]) {
  const mode = stream ? 'SSE' : 'JSON';

  t.test(`legacy functions + function_call {name}, ${mode}: a compliant function_call is a call, no re-ask`, async (t) => {
    script = () => ({ calls: [fnCall('get_weather', { city: 'Paris' })] });
    const before = upstream.requests.length;
    const response = await post('/v1/chat/completions', { model: 'agent', stream, messages: [{ role: 'user', content: 'Weather in Paris?' }], functions: FUNCTIONS, function_call: { name: 'get_weather' } });
    t.equal(response.status, 200);
    const text = await response.text();
    let call: { name?: string; arguments: string } | undefined;
    let finish: string | undefined;
    if (!stream) {
      const body = JSON.parse(text);
      call = body.choices[0].message.function_call;
      finish = body.choices[0].finish_reason;
      t.notOk(body.choices[0].message.tool_calls, 'legacy in, legacy out');
    } else {
      const chunks = sseData(text).filter((data) => data !== '[DONE]').map((data) => JSON.parse(data));
      t.notOk(chunks.some((chunk) => chunk.error), 'no error event');
      for (const chunk of chunks) {
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.tool_calls) t.fail('legacy in, legacy out: no tool_calls deltas');
        if (delta?.function_call) {
          call ??= { arguments: '' };
          if (delta.function_call.name) call.name = delta.function_call.name;
          call.arguments += delta.function_call.arguments ?? '';
        }
        if (chunk.choices?.[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      }
    }
    t.equal(call?.name, 'get_weather');
    t.same(JSON.parse(call?.arguments ?? 'null'), { city: 'Paris' });
    t.equal(finish, 'function_call');
    t.equal(chatRequests(before).length, 1, 'judged as the call it is: no re-ask');
  });

  t.test(`legacy functions, ${mode}: a re-ask carries the answer as a call the upstream accepts`, async (t) => {
    script = (body) => (isReask(body) ? { calls: [fnCall('get_time', { tz: 'UTC' })] } : { calls: [fnCall('get_weather', { city: 'Paris' })] });
    const before = upstream.requests.length;
    const response = await post('/v1/chat/completions', { model: 'agent', stream, messages: [{ role: 'user', content: 'Time?' }], functions: FUNCTIONS, function_call: { name: 'get_time' } });
    t.equal(response.status, 200);
    const text = await response.text();
    t.match(text, /get_time/);
    t.notMatch(text, /"error"/);
    const sent = chatRequests(before);
    t.equal(sent.length, 2, 'one re-ask');
    const answer = sent[1].messages[sent[0].messages.length];
    t.equal(answer.role, 'assistant');
    t.equal(answer.tool_calls?.[0]?.function?.name, 'get_weather', "the model's answer, as the call it made");
    t.equal(sent[1].messages[sent[0].messages.length + 1].role, 'tool', 'answered as not run');
  });

  t.test(`custom tools, ${mode}: a call to a declared custom tool is a call`, async (t) => {
    const customCall = { id: 'call_custom0123456789abcdef', type: 'custom', custom: { name: 'run_python', input: 'print(2 + 2)' } };
    script = () => ({ calls: [customCall] });
    const before = upstream.requests.length;
    const tools = [...TOOLS, { type: 'custom', custom: { name: 'run_python', description: 'Runs Python', format: { type: 'text' } } }];
    const response = await post('/v1/chat/completions', { model: 'agent', stream, messages: [{ role: 'user', content: 'Compute 2+2' }], tools, tool_choice: 'required' });
    t.equal(response.status, 200);
    const text = await response.text();
    const calls = stream ? customCalls(text) : JSON.parse(text).choices[0].message.tool_calls;
    t.same(calls, [customCall], 'handed on as the upstream made it');
    t.equal(chatRequests(before).length, 1, 'no re-ask');
  });
}

/** A stream's custom-tool calls, assembled from their deltas. */
function customCalls(text: string): unknown[] {
  const out: any[] = [];
  for (const chunk of readChatStream(text).chunks) {
    for (const part of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
      const call = (out[part.index] ??= { id: '', type: '', custom: { name: '', input: '' } });
      if (part.id) call.id = part.id;
      if (part.type) call.type = part.type;
      call.custom.name += part.custom?.name ?? '';
      call.custom.input += part.custom?.input ?? '';
    }
  }
  return out;
}

t.test('custom tools beside a function whose name must be encoded: never a 5xx', async (t) => {
  const odd = 'mcp/files:read.text';
  const tools = [{ type: 'function', function: { name: odd, parameters: { type: 'object', properties: { path: { type: 'string' } } } } }, { type: 'custom', custom: { name: 'run_python' } }];
  for (const stream of [false, true]) {
    const before = upstream.requests.length;
    script = (body) => ({ calls: [fnCall(body.tools[0].function.name, { path: '/a' })] });
    const history = [
      { role: 'user', content: 'Run it, then read /a' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_customprev0123456789ab', type: 'custom', custom: { name: 'run_python', input: 'print(1)' } }] },
      { role: 'tool', tool_call_id: 'call_customprev0123456789ab', content: '1' },
    ];
    const tool_choice = { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: odd } }, { type: 'custom', custom: { name: 'run_python' } }] } };
    const response = await post('/v1/chat/completions', { model: 'agent', stream, messages: history, tools, tool_choice });
    t.equal(response.status, 200, `${stream ? 'SSE' : 'JSON'}: ${response.status}`);
    const text = await response.text();
    t.match(text, /mcp\/files:read\.text/, 'the client gets its own name back');
    const sent = chatRequests(before)[0];
    t.match(sent.tools[0].function.name, /^[a-zA-Z0-9_-]{1,64}$/, 'the function name encoded for the upstream');
    t.same(sent.tools[1], tools[1], 'the custom tool goes up as declared');
    t.same(sent.tool_choice.allowed_tools.tools, [{ type: 'function', function: { name: sent.tools[0].function.name } }, tool_choice.allowed_tools.tools[1]], 'the allowed list names the function as the upstream knows it');
    t.same(sent.messages[1].tool_calls[0], history[1].tool_calls?.[0], 'a custom call in the history goes up as sent');
  }
});

t.test('an answer with neither text nor calls is not echoed as an empty assistant message in the re-ask', async (t) => {
  script = (body) => (isReask(body) ? { calls: [fnCall('get_weather', { city: 'Oslo' })] } : {});
  const before = upstream.requests.length;
  const response = await post('/v1/chat/completions', { model: 'agent', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: TOOLS, tool_choice: 'required' });
  t.equal(response.status, 200);
  const sent = chatRequests(before);
  t.equal(sent.length, 2);
  t.notOk(sent[1].messages.some((m: any) => m.role === 'assistant' && (m.content === null || m.content === undefined) && !m.tool_calls), 'no {"role":"assistant","content":null}');
  t.match(sent[1].messages.at(-1).content, CORRECTIVE);
});

t.test('Responses allowed_tools through the bridge: the contract holds the list', async (t) => {
  for (const stream of [false, true]) {
    // The model calls a declared tool the list does not allow; the re-ask calls the allowed one.
    script = (body) => (isReask(body) ? { calls: [fnCall('get_time', { tz: 'UTC' })] } : { calls: [fnCall('get_weather', { city: 'Paris' })] });
    const before = upstream.requests.length;
    const response = await post('/v1/responses', {
      model: 'agent',
      stream,
      input: 'What time is it?',
      tools: TOOLS.map((tool) => ({ type: 'function', name: tool.function.name, parameters: tool.function.parameters })),
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] },
    });
    t.equal(response.status, 200);
    const text = await response.text();
    const items = stream
      ? sseData(text).map((data) => JSON.parse(data)).filter((event) => event.type === 'response.output_item.added').map((event) => event.item)
      : JSON.parse(text).output;
    t.same(items.filter((item: any) => item.type === 'function_call').map((item: any) => item.name), ['get_time'], 'the call the list does not allow never reaches the client');
    const sent = chatRequests(before);
    t.equal(sent.length, 2, 'one re-ask');
    t.same(sent[0].tool_choice, { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_time' } }] } }, 'the list goes up in chat words');
    t.match(sent[1].messages.at(-1).content, /allows only "get_time"/);
  }
});
