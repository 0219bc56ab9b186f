import t from 'tap';
import { minimaxM2Format } from '../../../src/toolcalls/formats/minimax-m2.js';
import { parseContext } from '../helpers.js';
import { type FormatCase, checkCases, checkLinearGrowth } from './xml-harness.js';

// Layout as MiniMax M2's chat template writes calls (one tag per line, several invokes per section).
const ctx = parseContext();

const CASES: FormatCase[] = [
  {
    title: 'one call after reasoning, integer typed from the schema',
    text: '<think>\nThe user asks for the weather in Paris for 3 days. I will call get_weather.\n</think>\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [{ name: 'get_weather', args: { city: 'Paris', days: 3 } }],
    content: '<think>\nThe user asks for the weather in Paris for 3 days. I will call get_weather.\n</think>\n\n',
  },
  {
    title: 'two invokes in one section, prose before',
    text: "I'll check both cities.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">San Francisco, CA</parameter>\n<parameter name=\"metric\">false</parameter>\n</invoke>\n<invoke name=\"get_time\">\n<parameter name=\"zone\">America/Los_Angeles</parameter>\n</invoke>\n</minimax:tool_call>",
    calls: [
      { name: 'get_weather', args: { city: 'San Francisco, CA', metric: false } },
      { name: 'get_time', args: { zone: 'America/Los_Angeles' } },
    ],
    content: "I'll check both cities.\n",
  },
  {
    title: 'object, array, and a multi-line string stripped at both ends (as MiniMax\'s guide and vLLM read values)',
    text: '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">src/app.py</parameter>\n<parameter name="content">\n    import os\n    print(os.getcwd())\n</parameter>\n<parameter name="options">{"overwrite": true}</parameter>\n<parameter name="tags">["py", "demo"]</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [{ name: 'write_file', args: { path: 'src/app.py', content: 'import os\n    print(os.getcwd())', options: { overwrite: true }, tags: ['py', 'demo'] } }],
  },
  {
    title: 'an indented call after prose: values lose the indentation too',
    text: 'Here is the weather:\n  <minimax:tool_call>\n  <invoke name="get_weather">\n  <parameter name="city">\n  New York, NY\n  </parameter>\n  <parameter name="days">\n  2\n  </parameter>\n  </invoke>\n  </minimax:tool_call>\n',
    calls: [{ name: 'get_weather', args: { city: 'New York, NY', days: 2 } }],
    content: 'Here is the weather:\n  \n',
  },
  {
    title: 'two sections with prose between and after',
    text: 'Here is the weather:\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Boston, MA</parameter>\n</invoke>\n</minimax:tool_call>\nAnd the time:\n<minimax:tool_call>\n<invoke name="get_time">\n<parameter name="zone">America/New_York</parameter>\n</invoke>\n</minimax:tool_call>\nBoth requested.',
    calls: [
      { name: 'get_weather', args: { city: 'Boston, MA' } },
      { name: 'get_time', args: { zone: 'America/New_York' } },
    ],
    content: 'Here is the weather:\n\nAnd the time:\n\nBoth requested.',
  },
  { title: 'no parameters', text: '<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>', calls: [{ name: 'get_time', args: {} }] },
  { title: 'section closer missing at the end', text: '<minimax:tool_call>\n<invoke name="get_time">\n<parameter name="zone">UTC</parameter>\n</invoke>', calls: [{ name: 'get_time', args: { zone: 'UTC' } }] },
  {
    title: 'section markers dropped by the decoder',
    text: 'Let me check.\n<invoke name="get_weather">\n<parameter name="city">Nice</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [{ name: 'get_weather', args: { city: 'Nice' } }],
    content: 'Let me check.\n',
  },
  { title: 'undeclared tool stays content', text: '<minimax:tool_call>\n<invoke name="rm_rf">\n<parameter name="path">/</parameter>\n</invoke>\n</minimax:tool_call>', calls: null },
  { title: 'prose that mentions the tags', text: 'MiniMax wraps calls in <minimax:tool_call> with <invoke name="…"> inside.', calls: null },
  { title: 'an invoke of an undeclared name in prose', text: 'Write <invoke name="get_weather_v2"></invoke> to call it.', calls: null },
  { title: 'truncated invoke stays content', text: 'Let me see.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Par', calls: null },
];

t.test('MiniMax M2 invoke calls', async (t) => checkCases(t, minimaxM2Format, CASES, ctx));

t.test('a repeated unclosed section costs linear time', async (t) => {
  checkLinearGrowth(t, '<minimax:tool_call><invoke name="get_weather"><parameter name="city">x ', ctx);
});
