import t from 'tap';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { MessageEventSynthesizer, type MessageEvent } from '../../src/messages/events.js';
import { messageFromCompletion } from '../../src/messages/from-chat.js';
import { toChatRequest } from '../../src/messages/to-chat.js';
import type { MessagesRequest } from '../../src/messages/types.js';
import type { MessagesHistory } from '../../src/messages/repair/types.js';

// The translations on their own: Messages → chat (every row of docs/messages.md's table) and chat
// answers and chunks → a Message and its events.

const OPTIONS = { provider: 'p', target: { type: 'openai-compatible', model: 'm' } };
const base: MessagesRequest = { model: 'p/m', max_tokens: 100, messages: [] };
const chatOf = (request: Partial<MessagesRequest>, history: MessagesHistory, options = OPTIONS) => toChatRequest({ ...base, ...request }, history, options);

t.test('messages and blocks', async (t) => {
  const history: MessagesHistory = {
    system: [{ type: 'text', text: 'one', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'two' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'QUJD' } }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'sig' },
          { type: 'redacted_thinking', data: 'enc' },
          { type: 'text', text: 'Calling.' },
          { type: 'tool_use', id: 'toolu_1', name: 'mcp__fs__read', input: { path: '/a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'f', input: '{"raw": true}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'here you go' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'line 1' }, { type: 'image', source: { type: 'url', url: 'https://x/shot.png' } }, { type: 'text', text: 'line 2' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such file', is_error: true },
        ],
      },
      { role: 'system', content: 'reminder' },
      { role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc text' } }] },
    ],
  };
  const chat = chatOf({}, history);
  t.same(chat.messages, [
    { role: 'system', content: 'one\n\ntwo' },
    { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,QUJD' } }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
    {
      role: 'assistant',
      content: 'Calling.',
      reasoning_content: 'plan',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'mcp__fs__read', arguments: '{"path":"/a"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'f', arguments: '{"raw": true}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'line 1\nline 2' },
    { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: no such file' },
    { role: 'user', content: [{ type: 'text', text: 'here you go' }, { type: 'image_url', image_url: { url: 'https://x/shot.png' } }] },
    { role: 'system', content: 'reminder' },
    { role: 'user', content: 'doc text' },
  ]);
  const onlyCalls = chatOf({}, { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }] });
  t.equal(onlyCalls.messages[0].content, null, 'an assistant turn of calls only has null content');
});

t.test('request fields', async (t) => {
  const tools = [{ name: 'f', description: 'F', input_schema: { type: 'object', properties: { a: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }, { name: 'g' }];
  const history: MessagesHistory = { messages: [{ role: 'user', content: 'hi' }] };
  const chat = chatOf({ tools, tool_choice: { type: 'any', disable_parallel_tool_use: true }, stop_sequences: ['END'], temperature: 0.2, top_p: 0.9, top_k: 40, metadata: { user_id: 'u1' }, thinking: { type: 'enabled', budget_tokens: 2048 }, stream: true }, history);
  t.same(chat.tools, [
    { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } }, description: 'F' } },
    { type: 'function', function: { name: 'g', parameters: { type: 'object', properties: {} } } },
  ]);
  t.same(
    { tool_choice: chat.tool_choice, parallel: chat.parallel_tool_calls, stop: chat.stop, temperature: chat.temperature, top_p: chat.top_p, top_k: chat.top_k, user: chat.user, effort: chat.reasoning_effort, stream: chat.stream, max: chat.max_tokens },
    { tool_choice: 'required', parallel: false, stop: ['END'], temperature: 0.2, top_p: 0.9, top_k: 40, user: 'u1', effort: 'low', stream: true, max: 100 },
  );
  t.same(chatOf({ tools, tool_choice: { type: 'tool', name: 'g' } }, history).tool_choice, { type: 'function', function: { name: 'g' } });
  t.equal(chatOf({ tools, tool_choice: { type: 'none' } }, history).tool_choice, 'none');
  t.equal(chatOf({ tool_choice: { type: 'any' } }, history).tool_choice, undefined, 'no tools, no tool_choice');
  const openai = chatOf({ top_k: 5, thinking: { type: 'enabled', budget_tokens: 20000 } }, history, { provider: 'openai', target: { type: 'openai', model: 'gpt-4.1' } });
  t.same([openai.top_k, openai.reasoning_effort], [undefined, undefined], 'top_k and reasoning_effort only where the upstream takes them');
  t.equal(chatOf({ thinking: { type: 'enabled', budget_tokens: 10000 } }, history).reasoning_effort, 'medium');
  t.equal(chatOf({ thinking: { type: 'enabled', budget_tokens: 32000 } }, history).reasoning_effort, 'high');
  t.equal(chatOf({ thinking: { type: 'disabled' } }, history).reasoning_effort, undefined);
  t.throws(() => chatOf({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, history), { name: 'GatewayError', code: 'unsupported_tool_type', param: 'tools[0].type' });
  t.throws(() => chatOf({}, { messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }] }), { name: 'GatewayError', code: 'unsupported_content_type', param: 'messages[0].content[0].type' });
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish as never }] });

t.test('events from chunks', async (t) => {
  const synth = new MessageEventSynthesizer(base, 'msg_1');
  const events: MessageEvent[] = [...synth.start()];
  for (const c of [
    chunk({ role: 'assistant', reasoning_content: 'th' }),
    chunk({ reasoning_content: 'ink' }),
    chunk({ content: 'Hi' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"a"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'g', arguments: '{}' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }),
    chunk({}, 'tool_calls'),
  ]) {
    events.push(...synth.feed(c));
  }
  events.push(...synth.feed({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } }));
  events.push(...synth.end());
  t.same(events.map((e) => (e.type === 'content_block_delta' ? `${String(e.index)}:${String((e.delta as { type: string }).type)}` : e.type)), [
    'message_start', 'ping',
    'content_block_start', '0:thinking_delta', '0:thinking_delta', 'content_block_stop',
    'content_block_start', '1:text_delta', 'content_block_stop',
    'content_block_start', '2:input_json_delta', 'content_block_stop',
    'content_block_start',
    'content_block_stop', 'message_delta', 'message_stop',
  ], 'one block at a time; a call\'s input in one delta when its block closes ({} needs none); a late delta of a closed call sends nothing');
  t.same(events.find((e) => e.type === 'content_block_delta' && e.index === 2)?.delta, { type: 'input_json_delta', partial_json: '{"a":1}' });
  t.same(events[events.length - 2], { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 10, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  const empty = new MessageEventSynthesizer(base, 'msg_2');
  t.same([...empty.start(), ...empty.end()].map((e) => e.type), ['message_start', 'ping', 'message_delta', 'message_stop'], 'an empty answer is still a whole stream');
});

t.test('a completion as a Message', async (t) => {
  const message = messageFromCompletion({ ...base, stop_sequences: ['###'] }, {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-name',
    choices: [{ index: 0, message: { role: 'assistant', content: 'text', reasoning: 'why', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: 'not json' } }] }, finish_reason: 'stop' }],
  }, 'msg_x');
  t.same(message, {
    id: 'msg_x',
    type: 'message',
    role: 'assistant',
    model: 'p/m',
    content: [{ type: 'thinking', thinking: 'why', signature: '' }, { type: 'text', text: 'text' }, { type: 'tool_use', id: 'call_1', name: 'f', input: {} }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
});
