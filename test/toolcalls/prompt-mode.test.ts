import t from 'tap';
import type { ChatRequest } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { renderToolCall, toPromptMode } from '../../src/toolcalls/prompt-mode.js';
import { TOOLS, normalizeContext } from './helpers.js';

const request: ChatRequest = {
  model: 'm',
  tools: TOOLS.slice(0, 2),
  tool_choice: 'required',
  parallel_tool_calls: false,
  temperature: 0.2,
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Weather and time in SF?' },
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"SF"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '10:00' }] },
    { role: 'user', content: 'Thanks! And tomorrow?' },
  ],
};

t.test('tools go into the system prompt; tool fields are stripped', async (t) => {
  const out = toPromptMode(request);
  t.notOk('tools' in out);
  t.notOk('tool_choice' in out);
  t.notOk('parallel_tool_calls' in out);
  t.equal(out.temperature, 0.2, 'other fields kept');
  const system = out.messages[0];
  t.equal(system.role, 'system');
  const text = system.content as string;
  t.ok(text.startsWith('You are helpful.\n\n# Tools'));
  t.match(text, /<tools>\n\{"type":"function","function":\{"name":"get_weather"/);
  t.match(text, /<\/tools>/);
  t.match(text, /<tool_call>\n\{"name": <function-name>, "arguments": <args-json-object>\}\n<\/tool_call>/);
  t.match(text, /must call at least one function/);
  t.match(text, /at most one function/);
  t.equal(request.messages[0].content, 'You are helpful.', 'input not mutated');
});

t.test('history: tool calls become <tool_call> text, results become <tool_response> user turns', async (t) => {
  const out = toPromptMode(request);
  t.same(out.messages.slice(1), [
    { role: 'user', content: 'Weather and time in SF?' },
    {
      role: 'assistant',
      content: 'Checking.\n<tool_call>\n{"name":"get_weather","arguments":{"city":"SF"}}\n</tool_call>\n<tool_call>\n{"name":"get_time","arguments":{}}\n</tool_call>',
    },
    { role: 'user', content: '<tool_response>\nsunny\n</tool_response>\n<tool_response>\n10:00\n</tool_response>' },
    { role: 'user', content: 'Thanks! And tomorrow?' },
  ]);
});

t.test('no system message: one is added; named tool_choice is stated', async (t) => {
  const out = toPromptMode({ model: 'm', tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_time' } }, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(out.messages[0].role, 'system');
  t.match(out.messages[0].content as string, /must call the function "get_time"/);
  t.equal(out.messages.length, 2);
});

t.test('the answer is read back by the parsers', async (t) => {
  const answer = 'I will check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>';
  const { completion, report } = normalizeCompletion(
    { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }] },
    normalizeContext(),
  );
  t.equal(report.mode, 'text');
  t.equal(completion.choices[0].message.tool_calls?.[0].function.name, 'get_weather');
});

// Issue 14 §2: a history with 20k-deep arguments on a prompt-mode model ended in a 500
// (JSON.stringify recursion). The body limit now refuses such arguments from clients; the render
// must still never throw on arguments that got in some other way (ledger, model output).
t.test('renderToolCall: arguments too deep to re-serialize go in as their own JSON text', async (t) => {
  const deep = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  const block = renderToolCall({ id: 'c1', type: 'function', function: { name: 'f', arguments: deep } });
  t.equal(block, `<tool_call>\n{"name":"f","arguments":${deep}}\n</tool_call>`);
  const inner = block.slice('<tool_call>\n'.length, -'\n</tool_call>'.length);
  t.equal((JSON.parse(inner) as { name: string }).name, 'f', 'still one JSON object');
  t.equal(
    renderToolCall({ id: 'c2', type: 'function', function: { name: 'f', arguments: '{"city": "Oslo"}' } }),
    '<tool_call>\n{"name":"f","arguments":{"city":"Oslo"}}\n</tool_call>',
    'ordinary arguments are re-serialized compactly as before',
  );
  t.equal(
    renderToolCall({ id: 'c3', type: 'function', function: { name: 'f', arguments: 'not json' } }),
    '<tool_call>\n{"name":"f","arguments":"not json"}\n</tool_call>',
  );
});

// Issue 45: custom tools (`type: "custom"`) in prompt mode are shown as declared, their calls as name + input; never a crash.
t.test('custom tools and their calls in prompt mode', async (t) => {
  const custom = { type: 'custom', custom: { name: 'run_python', description: 'Runs Python' } };
  const customCall = { id: 'c9', type: 'custom', custom: { name: 'run_python', input: 'print(1)' } };
  const out = toPromptMode({
    model: 'm',
    tools: [...TOOLS, custom as never],
    messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [customCall as never] }, { role: 'tool', tool_call_id: 'c9', content: '1' }],
  });
  t.match(out.messages[0].content, /"type":"custom","custom":\{"name":"run_python"/);
  t.equal(out.messages[2].content, '<tool_call>\n{"name":"run_python","input":"print(1)"}\n</tool_call>');
});
