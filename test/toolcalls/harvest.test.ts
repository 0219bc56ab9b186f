import t from 'tap';
import { HARVEST } from './fixtures-harvest.js';
import { harvestFailure } from './harvest.js';

// Every harvested parser test case (vLLM, SGLang; test/toolcalls/fixtures-harvest.ts) parses as its
// test expects, whole and streamed, but for the cases toolgate leaves as content on purpose
// (precision before recall), each with its reason.

const LEFT_AS_CONTENT: Record<string, string> = {
  'TestPythonicDetector.test_parse_streaming_text_before_tool_call': 'a list in the middle of a sentence is an example, not a call',
  'TestPythonicDetector.test_parse_streaming_text_after_tool_call': 'a list followed by prose on its line is not a call list',
};

t.test('harvested parser test cases', async (t) => {
  for (const c of HARVEST) {
    const test = c.source.split(' :: ')[1];
    const reason = LEFT_AS_CONTENT[test];
    if (reason) {
      t.equal(harvestFailure({ ...c, calls: [], content: c.text }), null, `${c.source}: left as content (${reason})`);
      continue;
    }
    t.equal(harvestFailure(c), null, c.source);
  }
});
