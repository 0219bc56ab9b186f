import t from 'tap';
import type { ChatCompletion } from '../../src/api/chat-types.js';
import { baseResponse, responseFromCompletion, toResponseUsage } from '../../src/responses/from-chat.js';
import { parseResponsesRequest } from '../../src/responses/schema.js';
import { toChatRequest } from '../../src/responses/to-chat.js';
import { validateSchema, withoutOpenAINulls } from '../helpers/openapi.js';

// Translation both ways for upstreams without a native /responses.

t.test('items → chat messages', async (t) => {
  const request = parseResponsesRequest({
    model: 'hf/qwen',
    instructions: 'Be brief.',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look at ' }, { type: 'input_image', image_url: 'https://x/cat.png', detail: 'low' }] },
      { id: 'rs_1', type: 'reasoning', summary: [] },
      { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading both.', annotations: [] }] },
      { type: 'function_call', call_id: 'call_a', name: 'read', arguments: '{"p":1}' },
      { type: 'function_call', call_id: 'call_b', name: 'read', arguments: '{"p":2}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'B' }] },
      { type: 'function_call', call_id: 'call_c', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_c', output: 'C' },
    ],
    tools: [{ type: 'function', name: 'read', description: 'Read', parameters: { type: 'object', properties: {} }, strict: true }],
    tool_choice: { type: 'function', name: 'read' },
    parallel_tool_calls: false,
    max_output_tokens: 300,
    temperature: 0.2,
    text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    reasoning: { effort: 'low' },
    store: true,
    metadata: { a: 'b' },
  });
  const chat = toChatRequest(request, request.input, { provider: 'hf' });
  t.same(chat.messages, [
    { role: 'system', content: 'Be brief.' },
    { role: 'developer', content: 'Rules.' },
    { role: 'user', content: [{ type: 'text', text: 'Look at ' }, { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } }] },
    {
      role: 'assistant',
      content: 'Reading both.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"p":1}' } },
        { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"p":2}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'A' },
    { role: 'tool', tool_call_id: 'call_b', content: 'B' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'read', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_c', content: 'C' },
  ]);
  t.same(chat.tools, [{ type: 'function', function: { name: 'read', description: 'Read', parameters: { type: 'object', properties: {} }, strict: true } }]);
  t.same(chat.tool_choice, { type: 'function', function: { name: 'read' } });
  t.equal(chat.parallel_tool_calls, false);
  t.equal(chat.max_tokens, 300);
  t.equal(chat.temperature, 0.2);
  t.same(chat.response_format, { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } });
  t.equal(chat.reasoning_effort, 'low');
  t.notOk('store' in chat || 'metadata' in chat, 'Responses-only fields stay behind');
});

t.test('what the bridge cannot carry is a 400 naming it', async (t) => {
  const request = parseResponsesRequest({ model: 'm', input: [{ type: 'web_search_call', id: 'ws_1' }], tools: [{ type: 'web_search' }] });
  t.throws(() => toChatRequest(request, request.input, { provider: 'hf' }), { status: 400, param: 'input[0].type', code: 'unsupported_item_type' });
  t.notOk('tools' in toChatRequest(request, [], { provider: 'hf' }), 'a hosted tool is left out (bridge-tools.test.ts), not a 400');
  t.throws(() => toChatRequest({ ...request, tool_choice: { type: 'web_search_preview' } }, [], { provider: 'hf' }), { name: 'GatewayError', status: 400, param: 'tool_choice', code: 'unsupported_tool_type' });
  t.same(toChatRequest(request, request.input, { provider: 'hf', lenient: true }).messages, [], 'lenient view skips');
  const none = parseResponsesRequest({ model: 'm', input: 'x', reasoning: { effort: 'none' }, parallel_tool_calls: true });
  const chat = toChatRequest(none, none.input, { provider: 'hf' });
  t.notOk('reasoning_effort' in chat || 'parallel_tool_calls' in chat, 'effort "none" and parallel_tool_calls without tools are not sent');
});

function completion(message: Record<string, unknown>, finish: string, usage?: Record<string, unknown>): ChatCompletion {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }], usage } as unknown as ChatCompletion;
}

t.test('chat answer → response output', async (t) => {
  const request = parseResponsesRequest({ model: 'hf/qwen', input: 'hi', tools: [{ type: 'function', name: 'read', parameters: { type: 'object' } }], user: 'u1' });
  const base = baseResponse(request, 'resp_x', 1700000000, 'resp_prev');
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } };
  const response = responseFromCompletion(
    base,
    completion(
      {
        content: 'Let me read.',
        reasoning_content: 'The user wants a file.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } },
          { id: 'call_2', type: 'function', function: { name: 'read', arguments: '{"p":2}' } },
        ],
      },
      'tool_calls',
      usage,
    ),
    1700000001,
  );
  t.same(response.output.map((item) => item.type), ['reasoning', 'message', 'function_call', 'function_call']);
  t.match(response.output[1], { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me read.', annotations: [] }] });
  t.match(response.output[2], { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"p":1}', status: 'completed' });
  const ids = response.output.map((item) => item.id as string);
  t.equal(new Set(ids).size, 4, 'distinct item ids');
  t.match(ids, [/^rs_/, /^msg_/, /^fc_/, /^fc_/]);
  t.same(response.usage, { input_tokens: 10, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 15 });
  t.match(response, { id: 'resp_x', status: 'completed', completed_at: 1700000001, previous_response_id: 'resp_prev', model: 'hf/qwen', user: 'u1', store: true });
  t.same(response.tools, [{ type: 'function', name: 'read', parameters: { type: 'object' }, description: null, strict: true }]);
  t.same(validateSchema('Response', withoutOpenAINulls(response)), []);

  const cut = responseFromCompletion(base, completion({ content: 'Half an ans' }, 'length'));
  t.match(cut, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, completed_at: null });
  t.equal(cut.output[0].status, 'incomplete');
  t.equal(cut.usage, null, 'usage: null when the upstream sent none (the Open Responses spec requires the field)');
  t.same(validateSchema('Response', withoutOpenAINulls(cut)), []);
  t.equal(toResponseUsage(undefined), undefined);
});

t.test('the other fields real clients send still give a spec-valid response', async (t) => {
  const request = parseResponsesRequest({
    model: 'm',
    input: 'x',
    text: { verbosity: 'low' },
    reasoning: { effort: 'none' },
    include: ['reasoning.encrypted_content'],
    store: false,
    metadata: { a: 'b' },
    tool_choice: 'required',
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {}, additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' }, strict: null } }],
  });
  const response = responseFromCompletion(baseResponse(request, 'resp_1', 1, undefined), completion({ content: 'hi' }, 'stop'));
  t.same(validateSchema('Response', withoutOpenAINulls(response)), []);
  t.match(response, { store: false, metadata: { a: 'b' }, text: { format: { type: 'text' }, verbosity: 'low' }, tool_choice: 'required' });
});

t.test('reasoning items → reasoning_content of the assistant message they came with', async (t) => {
  const request = parseResponsesRequest({
    model: 'up/deepseek',
    input: [
      { type: 'message', role: 'user', content: 'Plan it' },
      { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'First, look up a.' }] },
      { type: 'function_call', call_id: 'call_a', name: 'read', arguments: '{}' },
      { id: 'rs_2', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Then b.' }] },
      { type: 'function_call', call_id: 'call_b', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', call_id: 'call_b', output: 'B' },
      { id: 'rs_3', type: 'reasoning', summary: [], encrypted_content: 'gAAAA-opaque' },
      { id: 'rs_4', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Both read.' }] },
      { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] },
      { id: 'rs_5', type: 'reasoning', summary: [{ type: 'summary_text', text: 'dangling' }] },
      { type: 'message', role: 'user', content: 'Thanks' },
    ],
  });
  const chat = toChatRequest(request, request.input as any, { provider: 'up' });
  t.same(
    chat.messages.map((m) => [m.role, m.reasoning_content]),
    [['user', undefined], ['assistant', 'First, look up a.\n\nThen b.'], ['tool', undefined], ['tool', undefined], ['assistant', 'Both read.'], ['user', undefined]],
  );
  t.same(chat.messages[1].tool_calls?.map((c) => c.id), ['call_a', 'call_b'], 'one step, both calls');
});
