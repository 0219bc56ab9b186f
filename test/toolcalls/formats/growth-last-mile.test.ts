import t from 'tap';
import { checkOpenerGrowth } from '../deltas.js';
import { parseContext } from '../helpers.js';

// The paths added for the last text-call formats (Kimi K2 ids, LFM2, OLMo 3 lines, Hunyuan-A13B's
// <answer>, DeepSeek V4), in a file of their own so each growth file stays well inside the timeout.
// A model that degenerates into repeating an opener without closing it must cost linear time:
// parsing 200 KB must take about as long as parsing 50 KB four times (linear: ratio ≈ 1;
// quadratic: ≈ 4). Best of five runs each, no absolute bounds (only the growth matters).

const ctx = parseContext();
const OPENERS: Record<string, string> = {
  'lfm2 without brackets': '<|tool_call_start|>get_weather(city="x") ',
  'lfm2 broken quotes': "<|tool_call_start|>[get_weather(city='x 'y' z', days='1' '2') ",
  'lfm2 broken quotes, closed': "<|tool_call_start|>[get_weather(city='x 'y', 'z', '1' '2')]<|tool_call_end|>",
  'olmo3 unreadable lines': '<function_calls>\nget_weather(city=)\n',
  'kimi unreadable ids': '<|tool_call_begin|>functions.x y:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>',
  'kimi counter ids': '<|tool_call_begin|>0<|tool_call_argument_begin|>{"city": ',
  'hunyuan answer': '<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "x"}}]</tool_calls>\n',
  'deepseek v4': '<｜DSML｜tool_calls><｜DSML｜invoke name="get_weather"><｜DSML｜parameter name="city" string="true">',
};

t.test('repeated unclosed openers: 200 KB once costs about what 50 KB four times does', async (t) => {
  checkOpenerGrowth(t, OPENERS, ctx);
});
