import t from 'tap';
import { HARVEST, type HarvestCase } from './fixtures-harvest.js';
import { harvestFailure } from './harvest.js';

// Every harvested parser test case (vLLM, SGLang; test/toolcalls/fixtures-harvest.ts) parses as its
// test expects, whole and streamed, but for the cases toolgate leaves as content on purpose
// (precision before recall), each with its reason.

const LEFT_AS_CONTENT: Record<string, string> = {
  'TestPythonicDetector.test_parse_streaming_text_before_tool_call': 'a list in the middle of a sentence is an example, not a call',
  'TestPythonicDetector.test_parse_streaming_text_after_tool_call': 'a list followed by prose on its line is not a call list',
  'TestLlama32Detector.test_json_with_trailing_text': 'Llama JSON followed by prose is a call only when its parameters fit the schema; {} lacks the required city',
  'TestLlama32Detector.test_invalid_then_valid_json': 'an object inside unbalanced larger JSON is part of that JSON, not a call',
};

// Cases where toolgate reads the calls differently on purpose, with the calls it returns.
const READ_DIFFERENTLY: Record<string, { reason: string; calls: HarvestCase['calls'] }> = {
  'TestQwen3CoderDetector.test_parse_streaming_multiple_tools': {
    reason: 'string values keep their indentation (one newline dropped each side, as vLLM reads them); SGLang strips all of it, which would change indented file contents',
    calls: [
      { name: 'get_current_weather', args: { city: '        Dallas\n        ', state: '        TX\n        ' } },
      { name: 'calculate_area', args: { shape: '        circle\n        ', dimensions: { radius: 5 } } },
    ],
  },
};

t.test('harvested parser test cases', async (t) => {
  for (const c of HARVEST) {
    const test = c.source.split(' :: ')[1];
    const reason = LEFT_AS_CONTENT[test];
    if (reason) {
      t.equal(harvestFailure({ ...c, calls: [], content: c.text }), null, `${c.source}: left as content (${reason})`);
      continue;
    }
    const differently = READ_DIFFERENTLY[test];
    if (differently) {
      t.equal(harvestFailure({ ...c, calls: differently.calls }), null, `${c.source}: read differently (${differently.reason})`);
      continue;
    }
    t.equal(harvestFailure(c), null, c.source);
  }
});
