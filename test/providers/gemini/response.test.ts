import t from 'tap';
import { geminiError } from '../../../src/providers/gemini/errors.js';
import { mapFinishReason, toCompletion, toUsage, type AnswerContext } from '../../../src/providers/gemini/response.js';
import { convertParameters } from '../../../src/providers/gemini/schema.js';
import { StreamTranslator } from '../../../src/providers/gemini/stream.js';
import { assemble } from './helpers.js';

// Gemini answers → OpenAI completions and chunks: tool calls, finish reasons, usage, errors.

function context(fixes = new Map()): AnswerContext & { warnings: string[] } {
  const warnings: string[] = [];
  return { provider: 'gemini', model: 'gemini/gemini-2.5-flash', fixes, warn: (m) => void warnings.push(m), warnings };
}

t.test('function calls become tool calls with ids, JSON arguments and finish_reason tool_calls', async (t) => {
  const { completion, callMeta } = toCompletion({
    candidates: [{
      index: 0,
      finishReason: 'STOP',
      content: { role: 'model', parts: [
        { text: 'secret reasoning', thought: true },
        { text: 'Let me check.' },
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
        { functionCall: { id: 'gem-7', name: 'get_weather', args: { city: 'Tokyo' } } },
        { functionCall: { name: 'ping' } },
      ] },
    }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 7, totalTokenCount: 22, cachedContentTokenCount: 4 },
    responseId: 'abc',
  }, context());
  const choice = completion.choices[0];
  t.equal(completion.id, 'chatcmpl-abc');
  t.equal(completion.object, 'chat.completion');
  t.equal(completion.model, 'gemini/gemini-2.5-flash');
  t.equal(choice.message.content, 'Let me check.', 'thought parts are not content');
  t.equal(choice.message.reasoning_content, 'secret reasoning', 'thought summaries are reasoning_content');
  t.equal(choice.finish_reason, 'tool_calls');
  const calls = choice.message.tool_calls ?? [];
  t.match(calls[0].id, /^call_[a-zA-Z0-9]{24}$/);
  t.equal(calls[1].id, 'gem-7', "Gemini's id is kept");
  t.not(calls[0].id, calls[2].id);
  t.same(calls.map((c) => c.function), [{ name: 'get_weather', arguments: '{"city":"Paris"}' }, { name: 'get_weather', arguments: '{"city":"Tokyo"}' }, { name: 'ping', arguments: '{}' }]);
  t.same(callMeta, { [calls[0].id]: { thoughtSignature: 'c2ln' }, 'gem-7': { upstreamId: 'gem-7' } });
  t.same(completion.usage, { prompt_tokens: 10, completion_tokens: 12, total_tokens: 22, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 7 } });
});

t.test('arguments get their declared enum values back', async (t) => {
  const { fix } = convertParameters({ type: 'object', properties: { level: { type: 'integer', enum: [1, 2, 3] } } });
  const { completion } = toCompletion({ candidates: [{ content: { parts: [{ functionCall: { name: 'set', args: { level: '2' } } }] }, finishReason: 'STOP' }] }, context(new Map([['set', fix]])));
  t.equal(completion.choices[0].message.tool_calls?.[0].function.arguments, '{"level":2}');
});

t.test('finish reasons', async (t) => {
  t.equal(mapFinishReason('STOP', false), 'stop');
  t.equal(mapFinishReason('STOP', true), 'tool_calls');
  t.equal(mapFinishReason('MAX_TOKENS', true), 'length');
  for (const reason of ['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII']) t.equal(mapFinishReason(reason, false), 'content_filter', reason);
  t.equal(mapFinishReason('OTHER', false), 'stop');
  t.equal(mapFinishReason(undefined, false), 'stop');
});

t.test('MALFORMED_FUNCTION_CALL: an error when nothing usable came, logged either way', async (t) => {
  const ctx = context();
  t.throws(() => toCompletion({ candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(x' }] }, ctx), {
    status: 502,
    code: 'upstream_bad_response',
    message: /MALFORMED_FUNCTION_CALL: Malformed function call/,
  });
  const { completion } = toCompletion({ candidates: [{ content: { parts: [{ text: 'Partial' }] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }, ctx);
  t.equal(completion.choices[0].message.content, 'Partial');
  t.equal(completion.choices[0].finish_reason, 'stop');
  t.equal(ctx.warnings.length, 2);
});

t.test('a blocked prompt is a 400 from the catalogue', async (t) => {
  t.throws(() => toCompletion({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 3 } }, context()), {
    status: 400,
    type: 'invalid_request_error',
    code: 'content_filter',
    message: /blocked the prompt \(blockReason PROHIBITED_CONTENT\)/,
  });
});

t.test('usage', async (t) => {
  t.equal(toUsage(undefined), undefined);
  t.same(toUsage({ promptTokenCount: 3, candidatesTokenCount: 2, toolUsePromptTokenCount: 1 }), {
    prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 },
  });
});

t.test('candidates become choices', async (t) => {
  const { completion } = toCompletion({ candidates: [{ index: 0, content: { parts: [{ text: 'A' }] }, finishReason: 'STOP' }, { index: 1, content: { parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS' }] }, context());
  t.same(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason]), [[0, 'A', 'stop'], [1, 'B', 'length']]);
  t.notOk('usage' in completion, 'no usage invented');
});

t.test('stream translation: text pieces, whole calls with stable indexes, finish and usage', async (t) => {
  const translator = new StreamTranslator(context(), true);
  const chunks = [
    ...translator.push({ candidates: [{ content: { parts: [{ text: 'Checking ' }] } }], responseId: 'r1' }),
    ...translator.push({ candidates: [{ content: { parts: [{ text: 'now.' }, { functionCall: { name: 'a', args: { x: 1 } }, thoughtSignature: 'c2ln' }] } }] }),
    ...translator.push({ candidates: [{ content: { parts: [{ functionCall: { name: 'b', args: {} } }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, thoughtsTokenCount: 2, totalTokenCount: 10 } }),
    ...translator.end(),
  ];
  t.ok(chunks.every((c) => c.id === 'chatcmpl-r1' && c.object === 'chat.completion.chunk'));
  t.same(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  const toolDeltas = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
  t.same(toolDeltas.map((d) => [d.index, d.function?.name]), [[0, 'a'], [1, 'b']]);
  const mixed = chunks.find((c) => c.choices[0]?.delta.content === 'now.');
  t.ok(mixed?.choices[0].delta.tool_calls, 'text and a call from one event stay together');
  const { message, finish } = assemble(chunks);
  t.equal(message.content, 'Checking now.');
  t.equal(finish, 'tool_calls');
  const last = chunks[chunks.length - 1];
  t.same(last.choices, []);
  t.same(last.usage, { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 2 } });
  t.ok(chunks.slice(0, -1).every((c) => c.usage === null), 'usage: null on the other chunks, like OpenAI');
  t.same(Object.values(translator.callMeta), [{ thoughtSignature: 'c2ln' }]);
  t.same(translator.messages()[0].tool_calls?.map((c) => c.function.name), ['a', 'b']);

  const quiet = new StreamTranslator(context(), false);
  const plain = [...quiet.push({ candidates: [{ content: { parts: [{ text: 'hi' }] } }] }), ...quiet.end()];
  t.notOk(plain.some((c) => 'usage' in c), 'no usage chunk (nor usage keys) unless include_usage');
  t.equal(plain[plain.length - 1].choices[0].finish_reason, 'stop', 'an open choice is closed at the end');
  t.throws(() => new StreamTranslator(context(), false).end(), { code: 'upstream_bad_response' });
});

t.test('Gemini errors keep status and message', async (t) => {
  const quota = geminiError('gemini', 429, JSON.stringify({
    error: { code: 429, message: 'You exceeded your current quota.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.4s' }] },
  }));
  t.match(quota, { status: 429, type: 'rate_limit_error', message: 'You exceeded your current quota.', code: 'resource_exhausted' });
  t.equal(quota.headers['retry-after'], '13');
  t.same(quota.toBody(), { error: { message: 'You exceeded your current quota.', type: 'rate_limit_error', param: null, code: 'resource_exhausted' } });

  const key = geminiError('gemini', 400, JSON.stringify({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } }));
  t.match(key, { status: 400, code: 'api_key_invalid' });
  t.match(geminiError('gemini', 503, JSON.stringify([{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }]), '7'), { status: 503, type: 'upstream_error', code: 'unavailable', headers: { 'retry-after': '7' } });
  t.match(geminiError('gemini', 502, '<html>Bad Gateway</html>'), { status: 502, message: "Provider 'gemini' answered HTTP 502: <html>Bad Gateway</html>" });
  t.match(geminiError('gemini', 404, ''), { status: 404, type: 'not_found_error' });
});

t.test('stream translation: thought summaries stream as reasoning_content and are in the recorded message', async (t) => {
  const translator = new StreamTranslator(context(), false);
  const chunks = [
    ...translator.push({ candidates: [{ content: { parts: [{ text: 'Weighing ', thought: true }] } }] }),
    ...translator.push({ candidates: [{ content: { parts: [{ text: 'options.', thought: true }, { functionCall: { name: 'a', args: {} }, thoughtSignature: 'c2ln' }] }, finishReason: 'STOP' }] }),
    ...translator.end(),
  ];
  const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');
  t.equal(reasoning, 'Weighing options.');
  t.notOk(chunks.some((c) => typeof c.choices[0]?.delta.content === 'string' && c.choices[0].delta.content !== ''), 'never content');
  t.equal(translator.messages()[0].reasoning_content, 'Weighing options.');
});
