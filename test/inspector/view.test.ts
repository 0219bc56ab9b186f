import t from 'tap';
import { argumentsView, shortHash, viewOf } from '../../src/inspector/view.js';
import { alignedRuns, repairDiff } from '../../src/inspector/diff.js';

// Privacy by default: message text becomes its length and a short keyed hash, structure stays.

const message = {
  role: 'assistant',
  content: 'The weather in Paris is sunny',
  tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } }],
};

t.test('default: lengths and hashes; roles, ids, names and argument keys kept', async (t) => {
  const view = viewOf(message, { captureContent: false }) as any;
  t.equal(view.role, 'assistant');
  t.equal(view.content, `‹29 chars #${shortHash(message.content)}›`);
  t.same(view.tool_calls[0].id, 'call_7');
  t.same(view.tool_calls[0].function.name, 'get_weather');
  t.same(view.tool_calls[0].function.arguments.keys, ['city', 'unit']);
  t.notOk(JSON.stringify(view).includes('Paris'), 'no text of the message');
  t.equal(shortHash('same'), shortHash('same'), 'equal texts, equal tags (diffs show what did not change)');
  t.not(shortHash('same'), shortHash('Same'));
});

t.test('captureContent: the text itself, cut at 2,000 characters', async (t) => {
  const view = viewOf({ ...message, content: 'x'.repeat(5_000) }, { captureContent: true }) as any;
  t.ok(view.content.startsWith('x'.repeat(2_000)));
  t.match(view.content, /‹5000 chars›$/);
  t.equal(argumentsView('{"a":1}', { captureContent: true }).text, '{"a":1}');
  t.same(argumentsView('not json', { captureContent: false }).keys, undefined);
});

t.test('bounded walk: depth, width', async (t) => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 50; i++) deep = { next: deep };
  t.ok(JSON.stringify(viewOf(deep, { captureContent: false })).includes('‹nested›'));
  const wide = viewOf(Array.from({ length: 500 }, (_, i) => i), { captureContent: false }) as unknown[];
  t.equal(wide.length, 65);
});

t.test('the diff: changed runs between the lists, findings attached', async (t) => {
  t.same(alignedRuns(['a', 'b', 'c'], ['a', 'B', 'c']).list, [{ beforeIndex: 1, beforeCount: 1, afterIndex: 1, afterCount: 1 }]);
  t.same(alignedRuns(['a', 'c'], ['a', 'b', 'c']).list, [{ beforeIndex: 1, beforeCount: 0, afterIndex: 1, afterCount: 1 }], 'an inserted message');
  t.same(alignedRuns(['a', 'x', 'c', 'y'], ['a', 'c']).list.length, 2, 'two removals, two runs');
  const before = [{ role: 'user', content: 'q' }, { role: 'tool', content: 'r' }];
  const after = [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [] }, { role: 'tool', content: 'r', tool_call_id: 'c1' }];
  const diff = repairDiff({ target: 'messages', before, after, findings: [{ kind: 'restored', index: 1, detail: 'd' }, { kind: 'id', index: 2, detail: 'd' }] }, 0, { captureContent: false });
  t.equal(diff.hunks.length, 1);
  t.same(diff.hunks[0].findings, [0, 1]);
  t.equal((diff.hunks[0].after[1] as any).tool_call_id, 'c1');
});

t.test('too many edits: one run between the common head and tail', async (t) => {
  const before = Array.from({ length: 2_000 }, (_, i) => `m${i}`);
  const after = before.map((item, i) => (i > 0 && i < 1_999 ? `${item}'` : item));
  const runs = alignedRuns(before, after);
  t.equal(runs.truncated, true);
  t.same(runs.list, [{ beforeIndex: 1, beforeCount: 1_998, afterIndex: 1, afterCount: 1_998 }]);
});

t.test('alignment work grows linearly with the history, whatever the edits (counted comparisons)', async (t) => {
  const count = (size: number, changed: (i: number) => boolean): number => {
    let comparisons = 0;
    const before = Array.from({ length: size }, (_, i) => i);
    const after = before.map((i) => (changed(i) ? -i - 1 : i));
    alignedRuns(before, after, (a, b) => {
      comparisons++;
      return a === b;
    });
    return comparisons;
  };
  for (const [name, changed] of [['one change', (i: number) => i === 7], ['every message changed', () => true], ['every other', (i: number) => i % 2 === 0]] as const) {
    const small = count(1_000, changed);
    const large = count(4_000, changed);
    t.ok(large <= small * 5, `${name}: ${small} → ${large} comparisons for 4× the messages`);
  }
});
