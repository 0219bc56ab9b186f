import t from 'tap';
import type { ChatCompletion } from '../../src/api/chat-types.js';
import { CONTENT_LIMITS, contentJson, factsOfCompletion, factsOfResponse, inputMessagesOf, outputMessagesOf, requestSettingsOf, StreamFacts } from '../../src/tracing/genai.js';

// What an answer tells a CLIENT span, and the bounded content capture.

const same = (text: string) => text;

t.test('a chat completion: id, model, one finish reason per choice, tokens', async (t) => {
  const completion = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-2024-08-06',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' },
      { index: 1, message: { role: 'assistant', content: 'h' }, finish_reason: 'length' },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
  } as ChatCompletion;
  t.same(factsOfCompletion(completion), { id: 'chatcmpl-1', model: 'gpt-4o-2024-08-06', finishReasons: ['stop', 'length'], inputTokens: 11, outputTokens: 3 });
  t.same(outputMessagesOf(completion)[1], { role: 'assistant', parts: [{ type: 'text', content: 'h' }], finish_reason: 'length' });
});

t.test('a Responses object: its status (or why it is incomplete) is the finish reason', async (t) => {
  t.same(factsOfResponse({ id: 'resp_1', object: 'response', model: 'gpt-4.1', status: 'completed', usage: { input_tokens: 5, output_tokens: 2 } }), {
    id: 'resp_1',
    model: 'gpt-4.1',
    finishReasons: ['completed'],
    inputTokens: 5,
    outputTokens: 2,
  });
  t.same(factsOfResponse({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }).finishReasons, ['max_output_tokens']);
});

t.test('a chat stream: facts from the chunks, choice 0 rebuilt only when content is kept', async (t) => {
  const chunks = [
    { id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me ' } }, { index: 1, delta: { content: 'x' } }] },
    { id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'get_', arguments: '{"ci' } }] } }] },
    { id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'weather', arguments: 'ty":"Oslo"}' } }] }, finish_reason: 'tool_calls' }, { index: 1, delta: {}, finish_reason: 'stop' }] },
    { id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } },
  ];
  const kept = new StreamFacts(true);
  const bare = new StreamFacts(false);
  for (const chunk of chunks) {
    kept.observe(chunk);
    bare.observe(chunk);
  }
  t.same(kept.facts, { id: 'c1', model: 'm', finishReasons: ['tool_calls', 'stop'], inputTokens: 9, outputTokens: 4 });
  t.same(kept.output(), [{ role: 'assistant', parts: [{ type: 'text', content: 'Let me ' }, { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' }]);
  t.same(bare.facts, kept.facts);
  t.equal(bare.output(), undefined);
  const batched = new StreamFacts(true);
  batched.observe(chunks.slice(0, 2));
  batched.observe(chunks.slice(2));
  t.same(batched.facts, kept.facts, 'batches of chunks read the same');
  t.same(batched.output(), kept.output());
});

t.test('native Responses events: the last response object seen gives the facts', async (t) => {
  const stream = new StreamFacts(false);
  stream.observe({ type: 'response.created', data: { response: { id: 'resp_9', model: 'gpt-4.1', status: 'in_progress' } } });
  stream.observe({ type: 'response.output_text.delta', data: { delta: 'hi' } });
  stream.observe({ type: 'response.completed', data: { response: { id: 'resp_9', model: 'gpt-4.1', status: 'completed', usage: { input_tokens: 3, output_tokens: 1 } } } });
  t.same(stream.facts, { id: 'resp_9', model: 'gpt-4.1', finishReasons: ['completed'], inputTokens: 3, outputTokens: 1 });
});

t.test('input messages in the conventions’ parts: text, tool calls, tool results; Responses items too', async (t) => {
  t.same(
    inputMessagesOf({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'weather ' }, { type: 'text', text: 'in Paris?' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    }),
    [
      { role: 'user', parts: [{ type: 'text', content: 'weather in Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny' }] },
    ],
  );
  t.same(inputMessagesOf({ input: 'hello' }), [{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }]);
  t.same(inputMessagesOf({ input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: 'ok' }] }), [
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{}' }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c', response: 'ok' }] },
  ]);
  t.equal(inputMessagesOf('not a body'), undefined);
});

t.test('captured content is bounded: long parts clipped, messages past the budget counted, always valid JSON', async (t) => {
  const long = 'x'.repeat(1_000_000);
  const [one] = inputMessagesOf({ messages: [{ role: 'user', content: long }] }) ?? [];
  t.ok(one.parts[0].content!.length < CONTENT_LIMITS.partChars + 64, 'one part is clipped');
  t.match(one.parts[0].content, /more characters\]$/);
  const many = inputMessagesOf({ messages: Array.from({ length: 5_000 }, (_, i) => ({ role: 'user', content: `${i} ${'y'.repeat(1_000)}` })) }) ?? [];
  const json = contentJson(many, same);
  t.ok(json.length <= CONTENT_LIMITS.totalChars + 200, `${json.length} characters`);
  const parsed = JSON.parse(json) as Array<{ role: string; parts: Array<{ content: string }> }>;
  const note = parsed.at(-1)!;
  t.equal(note.role, 'toolgate');
  t.equal(Number(/^(\d+) more/.exec(note.parts[0].content)?.[1]) + parsed.length - 1, 5_000, 'every message kept or counted');
});

t.test('captured content goes through the scrubber', async (t) => {
  const json = contentJson([{ role: 'user', parts: [{ type: 'text', content: 'key sk-123456' }] }], (text) => text.replaceAll('sk-123456', '[REDACTED]'));
  t.notMatch(json, /sk-123456/);
});

t.test('request settings as gen_ai.request.*: numbers only, stop as a list, choice count when not 1', async (t) => {
  t.same(requestSettingsOf({ max_completion_tokens: 200, max_tokens: 50, temperature: 0.2, top_p: 0.9, frequency_penalty: 0, presence_penalty: 0.5, seed: 7, n: 2, stop: 'END', stream: true }), {
    'gen_ai.request.max_tokens': 200,
    'gen_ai.request.temperature': 0.2,
    'gen_ai.request.top_p': 0.9,
    'gen_ai.request.frequency_penalty': 0,
    'gen_ai.request.presence_penalty': 0.5,
    'gen_ai.request.seed': 7,
    'gen_ai.request.choice.count': 2,
    'gen_ai.request.stop_sequences': ['END'],
    'gen_ai.request.stream': true,
  });
  t.same(requestSettingsOf({ temperature: '0.2', n: 1, stop: ['a', 3, 'b'], max_output_tokens: 64 }), {
    'gen_ai.request.max_tokens': 64,
    'gen_ai.request.stop_sequences': ['a', 'b'],
    'gen_ai.request.stream': false,
  });
  t.same(requestSettingsOf(undefined), {});
});
