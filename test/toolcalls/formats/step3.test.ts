import t from 'tap';
import { step3Format } from '../../../src/toolcalls/formats/step3.js';
import { parseContext } from '../helpers.js';
import { type FormatCase, checkCases, checkLinearGrowth } from './xml-harness.js';

// StepFun Step-3, as its chat template writes calls; values typed from the schema.
const ctx = parseContext();
const BEGIN = '<｜tool_calls_begin｜>';
const END = '<｜tool_calls_end｜>';
const CALL = '<｜tool_call_begin｜>function<｜tool_sep｜>';
const CALL_END = '<｜tool_call_end｜>';

const CASES: FormatCase[] = [
  {
    title: 'one call, prose before and after',
    text: `Let me help you.\n${BEGIN}\n${CALL}<steptml:invoke name="get_weather">\n<steptml:parameter name="city">Shanghai</steptml:parameter>\n<steptml:parameter name="days">2</steptml:parameter>\n</steptml:invoke>${CALL_END}\n${END}\nHere are the results...`,
    calls: [{ name: 'get_weather', args: { city: 'Shanghai', days: 2 } }],
    content: 'Let me help you.\n\nHere are the results...',
  },
  {
    title: 'two calls in one section',
    text: `${BEGIN}${CALL}<steptml:invoke name="get_time"><steptml:parameter name="zone">UTC</steptml:parameter></steptml:invoke>${CALL_END}${CALL}<steptml:invoke name="get_weather"><steptml:parameter name="city">Rome</steptml:parameter><steptml:parameter name="metric">true</steptml:parameter></steptml:invoke>${CALL_END}${END}`,
    calls: [
      { name: 'get_time', args: { zone: 'UTC' } },
      { name: 'get_weather', args: { city: 'Rome', metric: true } },
    ],
  },
  {
    title: 'no call type after the call opener, a <｜tool_sep｜> between calls (as in vLLM\'s step3 tests)',
    text: `${BEGIN}<｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke>${CALL_END}<｜tool_sep｜><｜tool_call_begin｜><steptml:invoke name="get_time"><steptml:parameter name="zone">Asia/Tokyo</steptml:parameter></steptml:invoke>${CALL_END}${END}`,
    calls: [
      { name: 'get_weather', args: { city: 'Tokyo' } },
      { name: 'get_time', args: { zone: 'Asia/Tokyo' } },
    ],
  },
  {
    title: 'after the reasoning, values typed from the schema (array, object, string that looks like a number)',
    text: `<think>The user wants a file.</think>\n${BEGIN}${CALL}<steptml:invoke name="write_file"><steptml:parameter name="path">007</steptml:parameter><steptml:parameter name="content">He said "hi"\nC:\\tmp</steptml:parameter><steptml:parameter name="tags">["a", "b"]</steptml:parameter><steptml:parameter name="options">{"mode": "w"}</steptml:parameter></steptml:invoke>${CALL_END}${END}`,
    calls: [{ name: 'write_file', args: { path: '007', content: 'He said "hi"\nC:\\tmp', tags: ['a', 'b'], options: { mode: 'w' } } }],
    content: '<think>The user wants a file.</think>\n',
  },
  { title: 'a call type longer than any real one stays content', text: `${BEGIN}<｜tool_call_begin｜>${'x'.repeat(40)}<｜tool_sep｜><steptml:invoke name="get_time"></steptml:invoke>${CALL_END}${END}`, calls: null },
  { title: 'undeclared tool stays content', text: `${BEGIN}${CALL}<steptml:invoke name="format_disk"></steptml:invoke>${CALL_END}${END}`, calls: null },
  { title: 'truncated call stays content', text: `${BEGIN}${CALL}<steptml:invoke name="get_weather"><steptml:parameter name="city">Ro`, calls: null },
  { title: 'prose that mentions the markers', text: `Step-3 opens calls with ${BEGIN} and <steptml:invoke name="x">.`, calls: null },
];

t.test('Step-3 steptml calls', async (t) => checkCases(t, step3Format, CASES, ctx));

t.test('a repeated unclosed section costs linear time', async (t) => {
  checkLinearGrowth(t, `${BEGIN}${CALL}<steptml:invoke name="get_weather"><steptml:parameter name="city">x `, ctx);
});
