import t from 'tap';
import { corruptedContentPass } from '../../src/repair/corrupted-content.js';
import { assistant, call, ctx, deepFreeze, req, tool, user } from './helpers.js';

const REPR = '<agent_framework._types.ChatMessage object at 0x10c394210>';

t.test('clean text: same object', async (t) => {
  const request = deepFreeze(req([user('the object at 0x is fine in prose'), assistant('ok')]));
  t.equal(corruptedContentPass.run(request, ctx({ corruptedContent: 'drop' })).request, request);
});

t.test('keep: an advisory finding, request unchanged', async (t) => {
  const request = req([user('q'), assistant(REPR)]);
  const out = corruptedContentPass.run(request, ctx({ corruptedContent: 'keep' }));
  t.equal(out.request, request);
  t.match(out.findings, [{ kind: 'corrupted_content', index: 1, advisory: true, detail: /ChatMessage object at 0x10c394210/ }]);
});

t.test('drop: repr-only messages go, mixed text keeps the rest, tool results keep their place', async (t) => {
  const out = corruptedContentPass.run(
    deepFreeze(
      req([
        user('q'),
        assistant(REPR),
        assistant(`[${REPR}, <agent_framework._types.ChatMessage object at 0x10c3942a0>]`),
        user('see [object Object] here'),
        { role: 'assistant', content: '[object Object]', tool_calls: [call('a', 'f')] },
        tool('a', '<function helper at 0x7f00aa>'),
        user([{ type: 'text', text: REPR }, { type: 'text', text: 'kept part' }]),
      ]),
    ),
    ctx({ corruptedContent: 'drop', missingResultText: 'NO RESULT' }),
  );
  t.same(out.request.messages, [
    { role: 'user', content: 'q' },
    { role: 'user', content: 'see  here' },
    { role: 'assistant', content: null, tool_calls: [call('a', 'f')] },
    { role: 'tool', tool_call_id: 'a', content: 'NO RESULT' },
    { role: 'user', content: [{ type: 'text', text: 'kept part' }] },
  ]);
  t.equal(out.findings.length, 6);
  t.ok(out.findings.every((f) => f.kind === 'corrupted_content' && !f.advisory));
});

t.test('never empties the conversation', async (t) => {
  const out = corruptedContentPass.run(req([user('[object Object]')]), ctx({ corruptedContent: 'drop' }));
  t.same(out.request.messages, [{ role: 'user', content: '' }]);
});
