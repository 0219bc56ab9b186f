import t from 'tap';
import { contentShapesPass } from '../../src/repair/content-shapes.js';
import { allPrefixFingerprints } from '../../src/ledger/fingerprint.js';
import { assistant, assistantCalls, call, ctx, deepFreeze, entry, kinds, req, snapshot, system, tool, user, strict } from './helpers.js';

t.test('valid shapes: same object back', async (t) => {
  const request = deepFreeze(
    req([
      system('s'),
      { role: 'developer', content: [{ type: 'text', text: 'd' }] },
      user([{ type: 'text', text: 'u' }, { type: 'image_url', image_url: { url: 'data:x' } }]),
      assistantCalls(call('c1', 'f')),
      tool('c1', 'r', { name: 'f' }),
      assistant('done'),
      user([]),
    ]),
  );
  t.equal(contentShapesPass.run(request, ctx()).request, request);
});

t.test('null / missing content where a string is required', async (t) => {
  const out = contentShapesPass.run(deepFreeze(req([{ role: 'user' }, user(null), assistant(null), tool('c', null), assistantCalls(call('c', 'f'))])), ctx());
  t.same(out.request.messages.map((m) => m.content), ['', '', '', '', null]);
  t.same(kinds(out.findings), ['content_null', 'content_null', 'content_null', 'content_null']);
});

t.test('tool content as object / array / number → string', async (t) => {
  const out = contentShapesPass.run(req([tool('a', { temp: 18 }), tool('b', [1, 2]), tool('c', 42), tool('d', [{ temp: 1 }])]), ctx());
  t.same(out.request.messages.map((m) => m.content), ['{"temp":18}', '[1,2]', '42', '[{"temp":1}]']);
  t.ok(out.findings.every((f) => f.kind === 'content_stringified'));
});

t.test('@openai/agents parts with stray keys become clean parts; unknown keys kept', async (t) => {
  const request = deepFreeze(
    req([
      {
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hi', annotations: [], role: 'assistant', tool_calls: [], refusal: null, logprobs: [] }],
        tool_calls: [call('c', 'f')],
      },
      user([{ type: 'input_text', text: 'q', cache_control: { type: 'ephemeral' } }, 'plain', { text: 'no type' }]),
      user([{ type: 'input_image', image_url: 'https://x/y.png', detail: 'low' }]),
    ]),
  );
  const out = contentShapesPass.run(request, ctx());
  t.same(out.request.messages[0].content, [{ type: 'text', text: 'Hi' }]);
  t.same(out.request.messages[1].content, [
    { type: 'text', text: 'q', cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'plain' },
    { type: 'text', text: 'no type' },
  ]);
  t.same(out.request.messages[2].content, [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }]);
});

t.test('response-only fields are removed; refusal and audio transcript text is kept', async (t) => {
  const out = contentShapesPass.run(
    deepFreeze(
      req([
        { role: 'assistant', content: null, refusal: 'I cannot help with that.', annotations: [] },
        { role: 'assistant', content: 'hi', refusal: null, parsed: { a: 1 } },
        { role: 'assistant', content: null, audio: { id: 'audio_1', data: 'AAA', expires_at: 1, transcript: 'spoken words' } },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}', parsed_arguments: {} }, index: 0 }],
        },
      ]),
    ),
    ctx(),
  );
  const [a, b, c, d] = out.request.messages;
  t.same(a, { role: 'assistant', content: 'I cannot help with that.' });
  t.same(b, { role: 'assistant', content: 'hi' });
  t.same(c, { role: 'assistant', content: 'spoken words', audio: { id: 'audio_1' } });
  t.same(d.tool_calls, [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }]);
  t.ok(kinds(out.findings).includes('response_fields_removed'));
});

t.test('tool call shapes: missing type, no function wrapper, empty tool_calls, numeric ids', async (t) => {
  const out = contentShapesPass.run(
    req([
      { role: 'assistant', content: null, tool_calls: [{ id: 7, name: 'f', arguments: '{}' }] },
      { role: 'tool', tool_call_id: 7, content: 'r' },
      { role: 'assistant', content: 'text', tool_calls: [] },
    ]),
    ctx(),
  );
  t.same(out.request.messages[0].tool_calls, [{ id: '7', type: 'function', function: { name: 'f', arguments: '{}' } }]);
  t.equal(out.request.messages[1].tool_call_id, '7');
  t.same(out.request.messages[2], { role: 'assistant', content: 'text' });
  const responsesItem = contentShapesPass.run(
    req([{ role: 'assistant', content: null, tool_calls: [{ type: 'function_call', call_id: 'fc_1', name: 'f', arguments: '{}', status: 'completed' }] }]),
    ctx(),
  );
  t.same(responsesItem.request.messages[0].tool_calls, [{ type: 'function', id: 'fc_1', function: { name: 'f', arguments: '{}' } }]);
});

t.test('a call with no name: ledger supplies it, else a precise 400', async (t) => {
  const ledger = snapshot([entry([call('c9', 'lookup', '{"q":1}')])]);
  const out = contentShapesPass.run(req([{ role: 'assistant', content: null, tool_calls: [{ id: 'c9', type: 'function', function: {} }] }]), ctx({}, ledger));
  t.same(strict(out.request).messages[0].tool_calls![0].function, { name: 'lookup', arguments: '{"q":1}' });
  t.throws(
    () => contentShapesPass.run(req([{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] }]), ctx()),
    { status: 400, code: 'invalid_tool_history', message: /messages\[0\]\.tool_calls\[0\] has no function name.*call ledger \(no entry for id c1\)/ },
  );
});

t.test('the fixes keep prefix fingerprints unchanged (the ledger still matches)', async (t) => {
  const before = req([
    system('  sys   prompt '),
    user([{ type: 'input_text', text: 'hello', annotations: [] }]),
    { role: 'assistant', content: null, refusal: 'no' },
    tool('x', { a: 1 }),
    user(null),
    assistant(null),
  ]);
  const after = contentShapesPass.run(before, ctx()).request;
  t.not(after, before);
  t.same(allPrefixFingerprints(after.messages), allPrefixFingerprints(before.messages));
});
