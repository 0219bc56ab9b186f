import t from 'tap';
import type { ChatChunk, ChunkDelta, FinishReason } from '../../src/api/chat-types.js';
import { errors } from '../../src/errors.js';
import { ResponseEventSynthesizer, type StreamEvent } from '../../src/responses/events.js';
import { baseResponse } from '../../src/responses/from-chat.js';
import { parseResponsesRequest } from '../../src/responses/schema.js';
import { validateSchema, withoutOpenAINulls } from '../helpers/openapi.js';

// Responses stream events synthesized from chat chunks: order, ids, deltas, terminal events.

const chunk = (delta: ChunkDelta, finish: FinishReason | null = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk: ChatChunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } };

function synth(): ResponseEventSynthesizer {
  const request = parseResponsesRequest({ model: 'hf/x', input: 'hi', tools: [{ type: 'function', name: 'read', parameters: { type: 'object' } }] });
  return new ResponseEventSynthesizer(baseResponse(request, 'resp_1', 1700000000, undefined));
}

function run(chunks: ChatChunk[]): { events: StreamEvent[]; response: ReturnType<ResponseEventSynthesizer['end']>['response'] } {
  const s = synth();
  const events = [...s.start()];
  for (const c of chunks) events.push(...s.feed(c));
  const end = s.end();
  events.push(...end.events, s.terminal(end.response));
  return { events, response: end.response };
}

function specErrors(events: StreamEvent[]): Array<{ type: string; errors: string[] }> {
  return events.map((e) => ({ type: e.type, errors: validateSchema('ResponseStreamEvent', withoutOpenAINulls(e)) })).filter((e) => e.errors.length > 0);
}

t.test('reasoning, text, then two calls', async (t) => {
  const { events, response } = run([
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'Think' }),
    chunk({ reasoning_content: 'ing.' }),
    chunk({ content: 'Let me ' }),
    chunk({ content: 'read.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"p":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{}' } }] }),
    chunk({}, 'tool_calls'),
    usageChunk,
  ]);
  t.same(events.map((e) => e.type), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.reasoning_text.delta',
    'response.reasoning_text.delta',
    'response.reasoning_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ]);
  t.same(events.map((e) => e.sequence_number), events.map((_, i) => i), 'sequence numbers 0, 1, 2, …');
  t.same(specErrors(events), [], 'every event matches the spec');
  t.match(events.find((e) => e.type === 'response.output_text.done'), { text: 'Let me read.', output_index: 1, content_index: 0 });
  t.match(events.find((e) => e.type === 'response.function_call_arguments.done'), { arguments: '{"p":1}', name: 'read', output_index: 2 });
  t.same(response.output.map((i) => [i.type, i.status]), [['reasoning', 'completed'], ['message', 'completed'], ['function_call', 'completed'], ['function_call', 'completed']]);
  t.same(response.output.map((i) => i.call_id).filter(Boolean), ['call_a', 'call_b']);
  t.equal(new Set(response.output.map((i) => i.id)).size, 4, 'distinct item ids');
  const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => (e.item as { id: string }).id);
  t.same(added, response.output.map((i) => i.id), 'added and final items share ids');
  t.match(response.usage, { input_tokens: 7, output_tokens: 3, total_tokens: 10 });
  t.match(events[events.length - 1], { type: 'response.completed', response: { status: 'completed', id: 'resp_1' } });
  t.same(validateSchema('Response', withoutOpenAINulls(response)), []);
});

t.test('a length cut ends in response.incomplete', async (t) => {
  const { events, response } = run([chunk({ content: 'Half' }), chunk({}, 'length')]);
  t.equal(events[events.length - 1].type, 'response.incomplete');
  t.match(response, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  t.equal(response.output[0].status, 'incomplete');
  t.same(specErrors(events), []);
});

t.test('a call without an upstream id gets one; nothing at all is an empty completed response', async (t) => {
  const { response } = run([chunk({ tool_calls: [{ index: 0, function: { name: 'read', arguments: '{}' } }] }), chunk({}, 'tool_calls')]);
  t.match(response.output[0].call_id, /^call_/);
  const empty = run([chunk({}, 'stop')]);
  t.same(empty.events.map((e) => e.type), ['response.created', 'response.in_progress', 'response.completed']);
});

t.test('an error mid-stream: error event, then response.failed with what was produced', async (t) => {
  const s = synth();
  const events = [...s.start(), ...s.feed(chunk({ content: 'Partial' }))];
  const failed = s.fail(errors.upstreamTimeout('hf', 1000));
  events.push(...failed.events);
  t.same(events.slice(-2).map((e) => e.type), ['error', 'response.failed']);
  t.match(events[events.length - 2], { code: 'upstream_timeout', message: /did not answer/ });
  t.match(failed.response, { status: 'failed', error: { code: 'server_error' } });
  t.same(specErrors(events), []);
  t.equal(s.fail(errors.upstreamStatus(429, 'slow down')).response.error?.code, 'rate_limit_exceeded');
});
