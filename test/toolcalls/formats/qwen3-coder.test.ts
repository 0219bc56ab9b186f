import t from 'tap';
import { checkFormatCases } from './check.js';

// Qwen3-Coder XML calls: the recoveries (issue 15, bugs 3 and 4) on top of the base format.

t.test('qwen3-coder', async (t) => {
  checkFormatCases(t, 'qwen3-coder', [
    {
      title: 'missing </parameter>: the next parameter is not part of the value',
      text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
      calls: [{ name: 'get_weather', args: { city: 'Dallas', days: 3 } }],
    },
    {
      title: 'missing </parameter> before </function>',
      text: '<tool_call>\n<function=search_procedure>\n<parameter=query>\nreset my password\n</function>\n</tool_call>',
      calls: [{ name: 'search_procedure', args: { query: 'reset my password' } }],
    },
    {
      title: 'every </parameter> missing',
      text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n<parameter=days>\n2\n<parameter=metric>\nfalse\n</function>\n</tool_call>',
      calls: [{ name: 'get_weather', args: { city: 'Dallas', days: 2, metric: false } }],
    },
    {
      title: 'tags inside a properly closed value stay in it',
      text: '<tool_call>\n<function=write_file>\n<parameter=path>\ndoc.md\n</parameter>\n<parameter=content>\nWrite <parameter=x> inline, and </function> too.\n</parameter>\n</function>\n</tool_call>',
      calls: [{ name: 'write_file', args: { path: 'doc.md', content: 'Write <parameter=x> inline, and </function> too.' } }],
    },
    {
      title: 'no <tool_call> opener: the dangling </tool_call> is part of the block',
      text: 'Let me check.\n<function=get_time>\n<parameter=zone>\nUTC\n</parameter>\n</function>\n</tool_call>',
      calls: [{ name: 'get_time', args: { zone: 'UTC' } }],
      content: 'Let me check.\n',
    },
    {
      title: 'two functions in one <tool_call>',
      text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n<function=get_time>\n</function>\n</tool_call>',
      calls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: {} },
      ],
    },
    {
      title: 'a function that breaks off stays content; the next one is read',
      text: '<function=write_file>\n<parameter=path>\na.txt\n<function=get_time>\n<parameter=zone>\nUTC\n</parameter>\n</function>',
      calls: [{ name: 'get_time', args: { zone: 'UTC' } }],
      content: '<function=write_file>\n<parameter=path>\na.txt\n',
    },
    // vLLM's qwen3coder parser reads `<function=…` to the end of its block (tests/tool_parsers/test_qwen3coder_tool_parser.py).
    {
      title: '</function> missing before </tool_call>',
      text: 'Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</tool_call>\nDone.',
      calls: [{ name: 'get_weather', args: { city: 'Paris', days: 3 } }],
      content: 'Checking.\n\nDone.',
    },
    {
      title: '</function> and </tool_call> missing at the end of the answer',
      text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n',
      calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    },
    { title: 'a value cut off at the end of the answer stays content', text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n', calls: null },
    { title: 'a value cut off before </tool_call> stays content', text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>', calls: null },
    { title: 'a bare </tool_call> in prose is prose', text: 'The closing tag is </tool_call>, and <function=x> opens a call.', calls: null },
    { title: 'undeclared second function rejects the block', text: '<tool_call>\n<function=get_time>\n</function>\n<function=erase_disk>\n</function>\n</tool_call>', calls: null },
  ]);
});
