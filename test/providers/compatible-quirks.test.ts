import t from 'tap';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { ChunkShaper } from '../../src/providers/compatible-quirks.js';

function chunk(calls: Record<string, unknown>[]): ChatChunk {
  return { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: calls as never }, finish_reason: null }] };
}

const indexesOf = (out: ChatChunk): unknown[] => (out.choices[0].delta.tool_calls ?? []).map((call) => call.index);

t.test('call deltas without index are numbered from their ids (Gemini OpenAI-compatible streams)', async (t) => {
  const shaper = new ChunkShaper();
  t.same(indexesOf(shaper.shape(chunk([{ id: 'a', function: { name: 'f', arguments: '' } }]))), [0], 'a new id opens call 0');
  t.same(indexesOf(shaper.shape(chunk([{ function: { arguments: '{"x":' } }]))), [0], 'a fragment without id continues it');
  t.same(indexesOf(shaper.shape(chunk([{ id: 'a', function: { arguments: '1}' } }]))), [0], 'a repeated id continues its call');
  t.same(indexesOf(shaper.shape(chunk([{ id: 'b', function: { name: 'g', arguments: '{}' } }, { id: 'c', function: { name: 'h', arguments: '{}' } }]))), [1, 2], 'new ids in one chunk open the next calls');
  t.same(indexesOf(shaper.shape(chunk([{ function: { arguments: ' ' } }]))), [2], 'then fragments go to the last call');
});

t.test('deltas that carry an index keep it, and the chunk itself is returned when nothing changes', async (t) => {
  const shaper = new ChunkShaper();
  const given = chunk([{ index: 1, id: 'x', function: { name: 'f', arguments: '' } }]);
  t.equal(shaper.shape(given), given, 'unchanged chunk is the same object');
  t.same(indexesOf(shaper.shape(chunk([{ id: 'x', function: { arguments: '{}' } }]))), [1], 'a seen id keeps the index it came with');
  t.same(indexesOf(shaper.shape(chunk([{ id: 'y', function: { name: 'g' } }]))), [2], 'a new id after it opens the next call');
  t.same(indexesOf(shaper.shape(chunk([{ index: null, function: { arguments: '{}' } }]))), [2], 'index null reads as absent');
});

t.test('each choice numbers its own calls', async (t) => {
  const shaper = new ChunkShaper();
  const two: ChatChunk = {
    id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm',
    choices: [
      { index: 0, delta: { tool_calls: [{ id: 'a' } as never] }, finish_reason: null },
      { index: 1, delta: { tool_calls: [{ id: 'b' } as never] }, finish_reason: null },
    ],
  };
  const out = shaper.shape(two);
  t.same(out.choices.map((choice) => choice.delta.tool_calls?.[0].index), [0, 0]);
});
