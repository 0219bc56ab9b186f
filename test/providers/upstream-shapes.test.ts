import fc from 'fast-check';
import t from 'tap';
import { z } from 'zod';
import { checkedChunk, checkedCompletion, chunkProblem, completionProblem } from '../../src/providers/upstream-shapes.js';

// The per-chunk check is written by hand (it runs once per streamed event); it must accept exactly
// what this zod schema accepts (the one it replaced, with `delta: null` read as no delta, as an
// absent one is), and a rejected chunk is still a 502 upstream_bad_response.

const content = z.union([z.string(), z.array(z.unknown()), z.null()]).optional();
const toolCalls = z.array(z.looseObject({ function: z.looseObject({}).optional() })).nullable().optional();
const formerSchema = z.looseObject({
  choices: z.array(z.looseObject({ delta: z.looseObject({ content, tool_calls: toolCalls }).nullable().optional() })),
  usage: z.looseObject({}).nullable().optional(),
});

const leaf = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant([]), fc.constant({}));
const call = fc.oneof(leaf, fc.record({ index: fc.integer(), function: leaf }, { requiredKeys: [] }));
const delta = fc.oneof(leaf, fc.record({ content: fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })), tool_calls: fc.oneof(leaf, fc.array(call, { maxLength: 3 })) }, { requiredKeys: [] }));
const choice = fc.oneof(leaf, fc.record({ index: fc.integer(), delta, finish_reason: leaf }, { requiredKeys: [] }));
const chunk = fc.oneof(leaf, fc.array(leaf, { maxLength: 2 }), fc.record({ id: leaf, choices: fc.oneof(leaf, fc.array(choice, { maxLength: 3 })), usage: leaf }, { requiredKeys: [] }));

t.test('property: the hand-written check accepts exactly what the zod schema accepted', async () => {
  fc.assert(
    fc.property(chunk, (value) => {
      const zodOk = formerSchema.safeParse(value).success;
      const handOk = chunkProblem(value) === undefined;
      if (zodOk !== handOk) throw new Error(`zod ${zodOk}, hand ${handOk} for ${JSON.stringify(value)}`);
    }),
    { numRuns: 5000, seed: 17 },
  );
});

t.test('a rejected chunk is a 502 upstream_bad_response naming where', async (t) => {
  const bad = { id: 'x', choices: [{ index: 0, delta: { tool_calls: [null] } }] };
  t.throws(() => checkedChunk('up', bad), { status: 502, code: 'upstream_bad_response', message: /choices\.0\.delta\.tool_calls\.0: expected object/ });
  const fine = { id: 'x', choices: [{ index: 0 }] };
  t.same(checkedChunk('up', fine).choices[0].delta, {}, 'a choice without delta reads as an empty delta');
});

t.test('keys a provider leaves out read as what their absence means, in chunks and completions', async (t) => {
  const chunk = checkedChunk('up', { id: 'x', choices: [{ delta: { content: 'a' } }, { delta: null, finish_reason: '' }] });
  t.same(chunk.choices, [{ delta: { content: 'a' }, finish_reason: null, index: 0 }, { delta: {}, finish_reason: null, index: 1 }], 'finish_reason null, index = position, delta {}');
  const kept = checkedChunk('up', { id: 'x', choices: [{ index: 3, delta: {}, finish_reason: 'stop' }] });
  t.same(kept.choices, [{ index: 3, delta: {}, finish_reason: 'stop' }], 'keys that are there stay as sent');
  t.same(checkedChunk('up', { id: 'x', usage: { prompt_tokens: 1 } }).choices, [], 'a usage-only chunk without choices has none');
  t.same(checkedChunk('up', { id: 'x', choices: null }).choices, [], 'choices: null reads as none');
  const completion = checkedCompletion('up', { id: 'x', choices: [{ message: { role: 'assistant', content: 'hi' } }] });
  t.same(completion.choices, [{ message: { role: 'assistant', content: 'hi' }, finish_reason: null, index: 0 }]);
});

// The completion check is written by hand too (it runs on every JSON answer): it must accept
// exactly what the zod schema it replaced accepted, and name the first problem in zod's words.
const formerCompletionSchema = z.looseObject({
  choices: z.array(z.looseObject({ message: z.looseObject({ content, tool_calls: toolCalls }) })),
  usage: z.looseObject({}).nullable().optional(),
});

function zodProblem(value: unknown): string | undefined {
  const result = formerCompletionSchema.safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return `${issue.path.length > 0 ? issue.path.join('.') : 'the body'}: ${issue.message}`;
}

const messageShape = fc.oneof(leaf, fc.record({ role: leaf, content: fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })), tool_calls: fc.oneof(leaf, fc.array(call, { maxLength: 3 })) }, { requiredKeys: [] }));
const completionChoice = fc.oneof(leaf, fc.record({ index: fc.integer(), message: messageShape, finish_reason: leaf }, { requiredKeys: [] }));
const completion = fc.oneof(
  leaf,
  fc.array(leaf, { maxLength: 2 }),
  fc.record({ id: leaf, choices: fc.oneof(leaf, fc.array(completionChoice, { maxLength: 3 })), usage: leaf }, { requiredKeys: [] }),
);

t.test('property: the completion check accepts what the zod schema accepted and names the same first problem', async () => {
  fc.assert(
    fc.property(completion, (value) => {
      const zod = zodProblem(value);
      const hand = completionProblem(value);
      if (zod !== hand) throw new Error(`zod ${zod}, hand ${hand} for ${JSON.stringify(value)}`);
    }),
    { numRuns: 5000, seed: 17 },
  );
});

t.test('a rejected completion is a 502 upstream_bad_response naming where', async (t) => {
  const bad = { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 5 } }] };
  t.throws(() => checkedCompletion('up', bad), { status: 502, code: 'upstream_bad_response', message: /not OpenAI-shaped \(choices\.0\.message\.content: Invalid input\)/ });
  const fine = { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 'f' } }] } }] };
  t.equal(checkedCompletion('up', fine), fine, 'the same object back');
});
