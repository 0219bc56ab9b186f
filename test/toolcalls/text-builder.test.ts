import t from 'tap';
import { TextBuilder } from '../../src/toolcalls/text-builder.js';

// What a stream keeps of its content and arguments: the text is exactly the pieces in order,
// whatever their number (around the block size) and sizes (empty pieces, long ones, non-ASCII).

t.test('the text is the concatenation of the pieces, read at any point', async (t) => {
  const samples = ['', 'a', ' ', 'héllo', '🙂', '\n', 'x'.repeat(300), '"\\u00e9"', '{"city":'];
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  for (const count of [0, 1, 63, 64, 65, 127, 128, 129, 1000]) {
    const builder = new TextBuilder();
    let expected = '';
    for (let i = 0; i < count; i++) {
      const piece = samples[random(samples.length)] + (random(3) === 0 ? String(i) : '');
      builder.append(piece);
      expected += piece;
      if (i % 50 === 0) t.equal(builder.text, expected, `${count} pieces: after ${i + 1}`);
    }
    t.equal(builder.text, expected, `${count} pieces`);
    t.equal(builder.length, expected.length);
  }
});
