import t from 'tap';
import { bestParseTime, repeatTo } from '../deltas.js';
import { parseContext } from '../helpers.js';

// A model that degenerates into repeating an opener without closing it must cost linear time:
// parsing 200 KB must take about as long as parsing 50 KB four times (linear: ratio ≈ 1;
// quadratic: ≈ 4). Best of five runs each, no absolute bounds (only the growth matters).

const ctx = parseContext();
const OPENERS: Record<string, string> = {
  'tool-calls-tag': '<tool_calls>[{"name": "get_weather", "arguments": {"city": "',
  nemotron: '<TOOLCALL>[{',
  granite: '<|tool_call|>[{',
  phi4: 'functools[{',
  internlm: '<|action_start|><|plugin|>{',
  longcat: '<longcat_tool_call>{"name": "',
  lfm2: '<|tool_call_start|>[get_weather(city="',
  olmo3: '<function_calls>get_weather(city="',
  gigachat: 'function call<|role_sep|>{"',
  'qwen3-coder without </parameter>': '<function=get_weather>\n<parameter=city>\nx\n',
  'seed-oss': '<seed:tool_call><function=get_weather><parameter=city>',
  'llama3-inline': 'See {"name": "get_weather", "parameters": {"city": "',
  'mistral junk': '[TOOL_CALLS]json ',
  'hermes sequence': '<tool_call>{"name": "get_time", "arguments": {}}, {',
};

t.test('repeated unclosed openers: 200 KB once costs about what 50 KB four times does', async (t) => {
  for (const [name, unit] of Object.entries(OPENERS)) {
    bestParseTime(repeatTo(unit, 10_000), 1, ctx); // warm-up
    const small = bestParseTime(repeatTo(unit, 50_000), 8, ctx);
    const large = bestParseTime(repeatTo(unit, 200_000), 2, ctx);
    t.ok(large / small < 3, `${name}: 8 × 50 KB ${small.toFixed(1)} ms, 2 × 200 KB ${large.toFixed(1)} ms`);
  }
});
