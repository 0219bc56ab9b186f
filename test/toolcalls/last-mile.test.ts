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

t.test('Mistral [TOOL_CALLS] with nothing after it: the marker is removed and counted, whole and streamed', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['Sure, checking.[TOOL_CALLS]', 'Sure, checking.'],
    ['Sure, checking. [TOOL_CALLS] \n', 'Sure, checking. '],
    ['[TOOL_CALLS]', null],
    // Not at the end: prose or junk after the marker keeps it (as vLLM's parser does).
    ['Mistral models write [TOOL_CALLS] before their calls.', 'Mistral models write [TOOL_CALLS] before their calls.'],
  ];
  for (const [text, content] of cases) {
    const whole = parseWithDetails(text, parseContext());
    t.equal(whole.result, null, `${JSON.stringify(text)}: no calls`);
    t.equal(whole.content, content, `${JSON.stringify(text)}: content`);
    t.equal(whole.malformedCalls, content === text ? 0 : 1, `${JSON.stringify(text)}: counted`);
    const random = prng(seedOf(text));
    for (let split = 0; split < 20; split++) {
      const extractor = new ToolCallStreamExtractor(parseContext());
      let streamed = '';
      const take = (events: ReturnType<typeof extractor.feed>): void => {
        for (const event of events) if (event.type === 'text') streamed += event.text;
      };
      for (const piece of smallDeltas(text, random)) take(extractor.feed(piece));
      take(extractor.end());
      if (streamed !== (content ?? '')) {
        t.equal(streamed, content ?? '', `${JSON.stringify(text)}: streamed`);
        break;
      }
    }
  }
});
