import t from 'tap';
import { checkChatRequest } from './openai-rules.js';
import { buildChunks, buildCompletion, resolveReply } from './openai-script.js';
import { openapiStats, schemaNames, validateSchema } from '../helpers/openapi.js';
import type { ChatRequest } from '../../src/api/chat-types.js';

// Loading is lazy and cached, counted as work (not time): only the schemas a requested name reaches
// are parsed, and each validator is compiled once. This file runs in its own process, so it starts cold.

t.test('loading is lazy and cached', async (t) => {
  t.same(openapiStats(), { parsed: 0, compiled: 0 }, 'nothing parsed before the first use');
  for (const name of ['CreateChatCompletionResponse', 'CreateChatCompletionStreamResponse', 'Model', 'ListModelsResponse', 'ErrorResponse']) validateSchema(name, {});
  const chat = openapiStats();
  t.equal(chat.compiled, 5);
  t.ok(chat.parsed < 100, `chat, model and error schemas: ${chat.parsed} of ${schemaNames().length} component schemas parsed`);
  for (const name of ['Response', 'ResponseStreamEvent']) validateSchema(name, {});
  const all = openapiStats();
  t.ok(all.parsed < schemaNames().length / 2, `Responses too: ${all.parsed} parsed`);
  for (let i = 0; i < 200; i++) validateSchema('CreateChatCompletionResponse', {});
  t.same(openapiStats(), all, 'compiled validators are reused: 200 more validations parse and compile nothing');
  t.ok(schemaNames().length > 1000, 'every component schema is addressable');
  t.throws(() => validateSchema('NoSuchSchema', {}), /no component schema named NoSuchSchema/);
});

const body: ChatRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } };
const shapes = {
  text: { text: 'Hello there, how are you?' },
  tools: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: '{"city":"Tokyo"}' }] },
  both: { text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  empty: { text: '' },
};

t.test('the emulator’s completions and chunks validate against the spec', async (t) => {
  for (const [name, reply] of Object.entries(shapes)) {
    const built = resolveReply(body, reply);
    t.same(validateSchema('CreateChatCompletionResponse', buildCompletion(body, built)), [], `${name}: completion`);
    for (const usage of [true, false]) {
      const req = { ...body, stream_options: { include_usage: usage, include_obfuscation: usage } };
      for (const chunk of buildChunks(req, built)) t.same(validateSchema('CreateChatCompletionStreamResponse', chunk), [], `${name}: chunk (usage ${usage})`);
    }
  }
});

t.test('invalid values are caught, with readable errors', async (t) => {
  const completion = buildCompletion(body, resolveReply(body, shapes.tools));
  const broken = structuredClone(completion) as any;
  broken.choices[0].finish_reason = 'done';
  delete broken.created;
  const errors = validateSchema('CreateChatCompletionResponse', broken);
  t.ok(errors.some((e) => e.includes("required property 'created'")), errors.join('\n'));
  t.ok(errors.some((e) => e.startsWith('/choices/0/finish_reason')), 'the bad enum is located');
  const badCall = structuredClone(completion) as any;
  badCall.choices[0].message.tool_calls[0].function.arguments = { city: 'Paris' };
  t.same(validateSchema('CreateChatCompletionResponse', badCall), ['/choices/0/message/tool_calls/0/function/arguments must be string {"type":"string"}'], 'a discriminated union reports its own branch only');
  t.ok(validateSchema('CreateChatCompletionStreamResponse', { ...buildChunks(body, resolveReply(body, shapes.text))[0], object: 'chat.completion' }).length > 0);
  t.same(validateSchema('ErrorResponse', checkChatRequest({ model: 'm' })!.body), []);
  t.ok(validateSchema('ErrorResponse', { error: { message: 'x', type: 'y' } }).length > 0, 'param and code are required members');
});

t.test('Models, lists and Responses objects', async (t) => {
  const model = { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'openai' };
  t.same(validateSchema('Model', model), []);
  t.same(validateSchema('ListModelsResponse', { object: 'list', data: [model] }), []);
  t.ok(validateSchema('ListModelsResponse', { object: 'list', data: [{ id: 'x' }] }).length > 0);
  const response = {
    id: 'resp_1', object: 'response', created_at: 1741476542, status: 'completed', error: null, incomplete_details: null,
    instructions: null, max_output_tokens: null, model: 'gpt-4o', parallel_tool_calls: true, previous_response_id: null,
    temperature: 1, top_p: 1, tool_choice: 'auto', tools: [], metadata: {}, text: { format: { type: 'text' } }, truncation: 'disabled',
    reasoning: { effort: null, summary: null }, store: true,
    output: [
      { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [], logprobs: [] }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{}', status: 'completed' },
    ],
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 8 },
  };
  t.same(validateSchema('Response', response), []);
  t.same(validateSchema('ResponseStreamEvent', { type: 'response.completed', response, sequence_number: 9 }), []);
  t.same(validateSchema('ResponseStreamEvent', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"ci', sequence_number: 3 }), []);
  const wrong = validateSchema('ResponseStreamEvent', { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, sequence_number: 1, logprobs: [] });
  t.same(wrong, [`/ must have required property 'delta' {"missingProperty":"delta"}`], 'one event type, one error');
  t.ok(validateSchema('ResponseStreamEvent', { type: 'response.nope', sequence_number: 1 })[0].startsWith('/type must be equal to one of the allowed values'));
});
