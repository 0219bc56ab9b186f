import t from 'tap';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { RepeatGuard } from '../../src/contract/repeat-guard.js';

// What the client sees of a re-ask's content: never again what it has seen already.

const chunk = (content: string | undefined, extra: Record<string, unknown> = {}, index = 0): ChatChunk =>
  ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta: { ...(content === undefined ? {} : { content }), ...extra }, finish_reason: null }] }) as ChatChunk;
const shown = (batches: ChatChunk[][], guard: RepeatGuard): string =>
  batches
    .map((batch) => guard.pass(batch))
    .flat()
    .map((c) => c.choices.map((choice) => choice.delta.content ?? '').join(''))
    .join('');

/** The client's text over two attempts, each given as its content deltas. */
function client(first: string[], second: string[]): string {
  const guard = new RepeatGuard();
  const before = shown(first.map((piece) => [chunk(piece)]), guard);
  guard.nextAttempt();
  return before + shown(second.map((piece) => [chunk(piece)]), guard);
}

t.test('the same words again: shown once', async (t) => {
  t.equal(client(['One ', 'moment.'], ['One moment.']), 'One moment.');
  t.equal(client(['One moment.'], ['One', ' mom', 'ent.']), 'One moment.', 'split differently');
  t.equal(client(['One moment.'], ['One mom']), 'One moment.', 'a part of it: nothing added');
});

t.test('the same words, then more: only the more', async (t) => {
  t.equal(client(['One moment.'], ['One moment.', ' Calling now.']), 'One moment. Calling now.');
  t.equal(client(['One moment.'], ['One moment. Calling now.']), 'One moment. Calling now.', 'in one delta');
});

t.test('something else: shown whole after what was sent, never spliced', async (t) => {
  t.equal(client(['One moment.'], ['Sure, calling.']), 'One moment.Sure, calling.');
  t.equal(client(['Checking the weather.'], ['Checking ', 'the forecast.']), 'Checking the weather.Checking the forecast.', 'a common start, then other words: all of it');
});

t.test('no content before: the re-ask streams as it comes (the same objects)', async (t) => {
  const guard = new RepeatGuard();
  guard.nextAttempt();
  const batch = [chunk('Hello')];
  t.equal(guard.pass(batch), batch);
});

t.test('a held delta keeps its other fields; choices are kept apart; a third attempt compares with all that was sent', async (t) => {
  const guard = new RepeatGuard();
  guard.pass([chunk('A.', {}, 0), chunk('B.', {}, 1)]);
  guard.nextAttempt();
  const out = guard.pass([chunk('A.', { role: 'assistant' }, 0), chunk('C.', {}, 1)]);
  t.same(out.map((c) => c.choices[0].delta), [{ role: 'assistant' }, { content: 'C.' }]);
  t.same(guard.pass([chunk(' More.', {}, 0)]).map((c) => c.choices[0].delta.content), [' More.'], 'the repeat held, then the rest');
  guard.nextAttempt();
  t.same(guard.pass([chunk('A. More. Done.', {}, 0)]).map((c) => c.choices[0].delta.content), [' Done.']);
  t.same(guard.pass([chunk('x', { reasoning_content: 'r' }, 1)]).map((c) => c.choices[0].delta.content), ['x'], 'choice 1 diverged from B.C.: whole');
  t.same(guard.pass([chunk(undefined, { reasoning_content: 'r' }, 0)]).map((c) => c.choices[0].delta), [{ reasoning_content: 'r' }], 'no content: as it came');
});
