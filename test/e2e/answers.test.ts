import t from 'tap';
import { askJson, askStream, startAnswerRig, WEATHER } from './answer-rig.js';

// Whole path, JSON and SSE (read by the openai SDK's stream helpers): toolgate changes an answer
// only where it is sure, and says so (docs/answers.md).

// The contract (docs/contract.md) would re-ask for a call to an undeclared tool; here it passes the
// answer on, so what the normalizer itself does is what the client sees.
const rig = await startAnswerRig('contract:\n  onViolation: pass\n');
t.teardown(() => rig.close());

const ASK = { messages: [{ role: 'user', content: 'How would a weather call look?' }], tools: [WEATHER] };

// Answers that show a call without making one, as GPT-4o writes them when asked.
const EXAMPLES = [
  'Here is how a call would look:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nChange the city as you like.',
  'The model wraps it in a tag, e.g. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>, and the server parses it.',
  'In the pythonic style the call is written as:\n[get_weather(city="Paris")]',
  'Llama writes it inline, {"name": "get_weather", "parameters": {"city": "Paris"}} and nothing else.',
  '```json\n{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}\n```',
  '{"name": "get_weather", "arguments": {"city": "Paris"}}',
];

t.test('a native upstream (OpenAI) showing calls in its prose: the answer is untouched, JSON and SSE', async (t) => {
  for (const content of EXAMPLES) {
    rig.answer = { content };
    for (const model of ['native/gpt-4o', 'open/gpt-4.1-mini', 'open/claude-sonnet-4']) {
      const json = await askJson(rig, { ...ASK, model });
      t.equal(json.status, 200);
      t.equal(json.content, content, `${model} JSON: byte for byte`);
      t.same([json.calls, json.finish], [[], 'stop']);
      t.equal(json.headers.get('x-toolgate-tool-mode'), 'none');
      const sse = await askStream(rig, { ...ASK, model });
      t.equal(sse.content, content, `${model} SSE: byte for byte`);
      t.same([sse.calls, sse.finish], [[], 'stop']);
    }
  }
});

t.test('tool_choice "none" or no tools: never extracted, even on an open model', async (t) => {
  rig.answer = { content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' };
  for (const body of [{ ...ASK, tool_choice: 'none' }, { messages: ASK.messages }]) {
    const json = await askJson(rig, { ...body, model: 'open/meta-llama/Llama-3.3-70B-Instruct' });
    t.same([json.content, json.calls, json.finish], [rig.answer.content, [], 'stop']);
    const sse = await askStream(rig, { ...body, model: 'open/meta-llama/Llama-3.3-70B-Instruct' });
    t.same([sse.content, sse.calls, sse.finish], [rig.answer.content, [], 'stop']);
  }
});

t.test('an open model leaking a call in its own markers: extracted; textCalls off: left as text', async (t) => {
  rig.answer = { content: 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' };
  const json = await askJson(rig, { ...ASK, model: 'open/Qwen/Qwen2.5-72B-Instruct' });
  t.same([json.content, json.calls, json.finish], ['Checking.\n', [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], 'tool_calls']);
  t.equal(json.headers.get('x-toolgate-tool-mode'), 'text');
  const sse = await askStream(rig, { ...ASK, model: 'open/Qwen/Qwen2.5-72B-Instruct' });
  t.same([sse.content, sse.calls, sse.finish], ['Checking.\n', [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], 'tool_calls']);
  const off = await askJson(rig, { ...ASK, model: 'off/Qwen/Qwen2.5-72B-Instruct' });
  t.same([off.content, off.calls], [rig.answer.content, []]);
  // Explanatory prose on an open model: a fenced example after "for example" is not a call.
  rig.answer = { content: 'For example:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```' };
  t.same((await askJson(rig, { ...ASK, model: 'open/Qwen/Qwen2.5-72B-Instruct' })).calls, []);
  t.same((await askStream(rig, { ...ASK, model: 'open/Qwen/Qwen2.5-72B-Instruct' })).calls, []);
});

t.test('a cut-off answer stays cut off, and says so', async (t) => {
  rig.answer = { toolCalls: [{ name: 'get_weather', arguments: '{"city": "San Francis' }], finish: 'length' };
  const json = await askJson(rig, { ...ASK, model: 'native/gpt-4o' });
  t.same([json.calls, json.finish], [[{ name: 'get_weather', arguments: '{"city": "San Francis' }], 'length']);
  t.match(json.headers.get('x-toolgate-warnings') ?? '', /answer_cut_off=1/);
  rig.answer = { content: 'Sure.\n<tool_call>{"name": "get_weather", "arguments": {"city": "San Francis', finish: 'length' };
  const text = await askJson(rig, { ...ASK, model: 'open/Qwen/Qwen2.5-72B-Instruct' });
  t.same([text.content, text.calls, text.finish], [rig.answer.content, [], 'length']);
});

t.test('an undeclared or near name is reported, never guessed', async (t) => {
  const acting = { type: 'function', function: { name: 'activate_account', parameters: { type: 'object', properties: { user: { type: 'string' } } } } };
  rig.answer = { toolCalls: [{ name: 'deactivate_account', arguments: '{"user": "u1"}' }] };
  const json = await askJson(rig, { messages: ASK.messages, tools: [acting], model: 'native/gpt-4o' });
  t.same(json.calls, [{ name: 'deactivate_account', arguments: '{"user": "u1"}' }], 'passed on under its own name');
  t.match(json.headers.get('x-toolgate-warnings') ?? '', /unknown_tool_name=1/);
});

t.test('an upstream index that is not a small non-negative integer: 502 upstream_bad_response', async (t) => {
  rig.answer = { toolCalls: [{ name: 'get_weather', arguments: '{}', index: 400_000_000 }] };
  const res = await fetch(`${rig.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...ASK, model: 'native/gpt-4o', stream: true }) });
  const text = await res.text();
  t.match(text, /upstream_bad_response/);
  t.equal(([] as unknown as { id?: unknown }).id, undefined);
});

t.test('a stream with no role and a call numbered 1 reads cleanly in the SDK', async (t) => {
  rig.answer = { content: 'Looking.', toolCalls: [{ id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city":"Paris"}', index: 1 }], noRole: true };
  const sse = await askStream(rig, { ...ASK, model: 'open/claude-sonnet-4' });
  t.same([sse.completion.choices[0].message.role, sse.calls, sse.finish], ['assistant', [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], 'tool_calls']);
});

t.test('legacy functions in, legacy function_call out: JSON and SDK stream', async (t) => {
  const legacy = { model: 'native/gpt-4o', messages: ASK.messages, functions: [WEATHER.function] };
  rig.answer = { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] };
  const json = await askJson(rig, legacy);
  t.same([json.functionCall, json.calls, json.finish], [{ name: 'get_weather', arguments: '{"city":"Paris"}' }, [], 'function_call']);
  const sse = await askStream(rig, legacy);
  t.same([sse.functionCall, sse.calls, sse.finish], [{ name: 'get_weather', arguments: '{"city":"Paris"}' }, [], 'function_call']);
  // A text call of an open model comes back in the legacy shape too; an answer without a call is plain.
  rig.answer = { content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>' };
  const text = await askJson(rig, { ...legacy, model: 'open/Qwen/Qwen2.5-72B-Instruct' });
  t.same([text.functionCall, text.finish], [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }, 'function_call']);
  rig.answer = { content: 'Sunny.' };
  const plain = await askJson(rig, legacy);
  t.same([plain.content, plain.functionCall, plain.finish], ['Sunny.', undefined, 'stop']);
});
