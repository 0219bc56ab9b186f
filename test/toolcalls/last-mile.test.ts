import t from 'tap';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { ToolCallStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import { prng, seedOf, smallDeltas } from './deltas.js';
import { LAST_MILE_CASES } from './fixtures-last-mile.js';
import { parseContext } from './helpers.js';

// The calls left out of a block are counted (malformedCalls), whole and streamed alike; calls
// and content of these cases are checked with every other case (formats.test.ts,
// stream-extractor.test.ts).

t.test('a malformed call in a block is counted, whole and streamed', async (t) => {
  for (const c of LAST_MILE_CASES) {
    const whole = parseWithDetails(c.text, parseContext());
    t.equal(whole.malformedCalls, c.malformed ?? 0, `${c.title}: counted whole`);
    t.equal(whole.result?.format ?? null, c.calls === null ? null : c.format, `${c.title}: format`);
    const random = prng(seedOf(c.text));
    for (let split = 0; split < 20; split++) {
      const extractor = new ToolCallStreamExtractor(parseContext());
      for (const piece of smallDeltas(c.text, random)) extractor.feed(piece);
      extractor.end();
      if (extractor.malformedCalls !== whole.malformedCalls) {
        t.fail(`${c.title}: streamed count ${extractor.malformedCalls}`);
        break;
      }
    }
  }
});
