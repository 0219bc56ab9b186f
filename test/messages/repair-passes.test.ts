import t from 'tap';
import { shapeBlocks } from '../../src/messages/repair/block-shapes.js';
import { emptyTextPass } from '../../src/messages/repair/empty-text.js';
import { repairMessages } from '../../src/messages/repair/index.js';
import { DEFAULT_REPAIR_OPTIONS } from '../../src/repair/index.js';
import type { MessagesRequest, RawMessageParam } from '../../src/messages/types.js';

// The Messages-dialect passes on their own: pure, one finding per change, a valid history untouched.

const kinds = (findings: Array<{ kind: string }>) => findings.map((f) => f.kind);

t.test('block-shapes types bare strings and untyped blocks from their keys', async (t) => {
  const messages: RawMessageParam[] = [
    { role: 'user', content: ['hello', { text: 'there' }] },
    { role: 'assistant', content: [{ thinking: 'hmm', signature: 's' }, { id: 'toolu_1', name: 'f', input: {} }] },
    { role: 'user', content: [{ tool_use_id: 'toolu_1', content: { rows: 3 } }, { source: { type: 'url', url: 'https://x/y.png' } }] },
  ];
  const { history, findings } = shapeBlocks([' sys'], messages, true);
  t.same(history.messages[0].content, [{ type: 'text', text: 'hello' }, { type: 'text', text: 'there' }]);
  t.same((history.messages[1].content as Array<{ type: string }>).map((b) => b.type), ['thinking', 'tool_use']);
  t.same(history.messages[2].content, [{ tool_use_id: 'toolu_1', content: '{"rows":3}', type: 'tool_result' }, { source: { type: 'url', url: 'https://x/y.png' }, type: 'image' }]);
  t.same(history.system, [{ type: 'text', text: ' sys' }]);
  t.same(kinds(findings), ['block_type_inferred', 'block_type_inferred', 'block_type_inferred', 'block_type_inferred', 'block_type_inferred', 'content_stringified', 'block_type_inferred', 'block_type_inferred']);
  t.same(findings.map((f) => f.index), [0, 0, 1, 1, 2, 2, 2, -1], 'findings name the message (-1: system)');
});

t.test('block-shapes refuses what it cannot tell, and everything untyped when disabled', async (t) => {
  t.throws(() => shapeBlocks(undefined, [{ role: 'user', content: [{ foo: 1 }] }], true), { name: 'GatewayError', status: 400, param: 'messages[0].content[0]' });
  t.throws(() => shapeBlocks(undefined, [{ role: 'user', content: [42] }], true), { name: 'GatewayError', status: 400 });
  t.throws(() => shapeBlocks(undefined, [{ role: 'user', content: ['bare'] }], false), { name: 'GatewayError', status: 400 });
  const typed: RawMessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'ok' }] }, { role: 'user', content: 'plain' }];
  const result = shapeBlocks(undefined, typed, false);
  t.same(result.findings, []);
  t.equal(result.history.messages[0].content, typed[0].content, 'typed blocks are the same objects');
});

t.test('empty-text-blocks', async (t) => {
  const { history, findings } = emptyTextPass.run({
    system: [{ type: 'text', text: '' }, { type: 'text', text: 'rules' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'text', text: '\n\n' }, { type: 'tool_use', id: 'a', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'text', text: '' }] },
      { role: 'user', content: [{ type: 'text', text: ' ' }] },
      { role: 'assistant', content: '' },
    ],
  });
  t.same(history.messages.map((m) => m.content), [[{ type: 'text', text: 'hi' }], [{ type: 'tool_use', id: 'a', name: 'f', input: {} }], [{ type: 'text', text: ' ' }], '']);
  t.same(history.system, [{ type: 'text', text: 'rules' }]);
  t.same(findings.map((f) => [f.kind, f.index]), [['empty_text_removed', 1], ['empty_text_removed', 2], ['empty_text_removed', -1]]);
  const clean = { messages: [{ role: 'user' as const, content: [{ type: 'text', text: 'hi' }] }] };
  const again = emptyTextPass.run(clean);
  t.same(again.findings, []);
  t.equal(again.history.messages[0], clean.messages[0], 'an untouched message is the same object');
});

t.test('repairMessages: strict mode refuses, disabled passes are skipped', async (t) => {
  const request: MessagesRequest = { model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'text', text: 'x' }] }] };
  t.same(kinds(repairMessages(request, DEFAULT_REPAIR_OPTIONS).findings), ['empty_text_removed']);
  t.same(repairMessages(request, { ...DEFAULT_REPAIR_OPTIONS, disabled: new Set(['empty-text-blocks']) }).findings, []);
  t.throws(() => repairMessages(request, { ...DEFAULT_REPAIR_OPTIONS, mode: 'strict' }), { status: 400, code: 'invalid_tool_history' });
});

t.test('one walk: work grows with the blocks, not their square', async (t) => {
  // 200,000 blocks in one message: a pass that re-scanned from each block would not finish here.
  const blocks: unknown[] = [];
  for (let i = 0; i < 200_000; i++) blocks.push(i % 2 === 0 ? '' : 'x');
  const { history, findings } = repairMessages({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: blocks }] }, DEFAULT_REPAIR_OPTIONS);
  t.equal((history.messages[0].content as unknown[]).length, 100_000);
  t.equal(findings.length, 200_001, 'one finding per typed block, one for the emptied ones');
});
