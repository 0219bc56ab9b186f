import t from 'tap';
import { CUE_WINDOW, ExplanationCues } from '../../src/toolcalls/scanner-cues.js';

// The explanation cues the scanner reads from prose: found whole or split between pieces, kept once
// found, cleared for a new answer; the window it keeps stays bounded whatever the prose's length.

t.test('a cue is found whole, split between pieces, and kept until reset', async (t) => {
  const whole = new ExplanationCues();
  whole.note('Here is an example of the call:');
  t.ok(whole.explaining);
  const split = new ExplanationCues();
  for (const piece of ['A call would lo', 'ok like this']) split.note(piece);
  t.ok(split.explaining, 'a cue split between two deltas');
  split.note('more prose');
  t.ok(split.explaining, 'kept');
  split.reset();
  t.notOk(split.explaining, 'cleared for a new answer');
  const plain = new ExplanationCues();
  plain.note('The weather in Paris is sunny.');
  t.notOk(plain.explaining);
});

t.test('the kept window is bounded', async (t) => {
  const cues = new ExplanationCues();
  for (let i = 0; i < 1000; i++) cues.note('plain words without any cue at all ');
  t.notOk(cues.explaining);
  const tail = (cues as unknown as { tail: string }).tail;
  t.ok(tail.length <= CUE_WINDOW, `${tail.length} characters kept`);
});
