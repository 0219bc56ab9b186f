import t from 'tap';
import { checkFormatCases } from './check.js';

// Liquid LFM2: <|tool_call_start|>[pythonic calls]<|tool_call_end|> (the JSON list form too).

t.test('lfm2', async (t) => {
  checkFormatCases(t, 'lfm2', [
    {
      title: 'single pythonic call',
      text: '<|tool_call_start|>[get_weather(city="Antwerp")]<|tool_call_end|>',
      calls: [{ name: 'get_weather', args: { city: 'Antwerp' } }],
    },
    {
      title: 'two calls, typed values, prose after',
      text: '<|tool_call_start|>[get_weather(city="Antwerp", days=3, metric=True), get_time(zone=\'Europe/Brussels\')]<|tool_call_end|>Checking the weather and time for you.',
      calls: [
        { name: 'get_weather', args: { city: 'Antwerp', days: 3, metric: true } },
        { name: 'get_time', args: { zone: 'Europe/Brussels' } },
      ],
      content: 'Checking the weather and time for you.',
    },
    {
      title: 'nested literal arguments',
      text: '<|tool_call_start|>[write_file(path="notes.txt", content="a, b) c", options={"mode": "append", "retries": 2}, tags=["x", "y"])]<|tool_call_end|>',
      calls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'a, b) c', options: { mode: 'append', retries: 2 }, tags: ['x', 'y'] } }],
    },
    {
      title: 'JSON form',
      text: '<|tool_call_start|>[{"name": "search_procedure", "arguments": {"query": "badge access"}}]<|tool_call_end|>',
      calls: [{ name: 'search_procedure', args: { query: 'badge access' } }],
    },
    {
      title: 'one call with unreadable arguments is left out, the other kept',
      text: '<|tool_call_start|>[get_weather(city=Paris), get_time(zone="CET")]<|tool_call_end|>',
      calls: [{ name: 'get_time', args: { zone: 'CET' } }],
    },
    // As vLLM's lfm2 parser recovers them (tests/tool_parsers/test_lfm2_tool_parser.py): LFM2.5 writes shell commands verbatim.
    {
      title: 'a raw newline in a string',
      text: "<|tool_call_start|>[write_file(path='f.py', content='import csv\nprint(1)')]<|tool_call_end|>",
      calls: [{ name: 'write_file', args: { path: 'f.py', content: 'import csv\nprint(1)' } }],
    },
    {
      title: 'a set literal is a list',
      text: "<|tool_call_start|>[write_file(path='a', content='b', tags={'urgent', 'bug'})]<|tool_call_end|>",
      calls: [{ name: 'write_file', args: { path: 'a', content: 'b', tags: ['urgent', 'bug'] } }],
    },
    {
      title: 'unescaped quotes of its own kind inside a string',
      text: "<|tool_call_start|>[search_procedure(query='sed -n '360,450p' /testbed/common.py')]<|tool_call_end|>Running it.",
      calls: [{ name: 'search_procedure', args: { query: "sed -n '360,450p' /testbed/common.py" } }],
      content: 'Running it.',
    },
    {
      title: 'nested quotes and a newline: only one closing quote makes the list read',
      text: "<|tool_call_start|>[search_procedure(query='python3 -c \"from sympy import latex\nprint(latex(x, mul_symbol='\\,'))\"')]<|tool_call_end|>",
      calls: [{ name: 'search_procedure', args: { query: "python3 -c \"from sympy import latex\nprint(latex(x, mul_symbol='\\,'))\"" } }],
    },
    { title: 'two closing quotes that both read: not guessed', text: "<|tool_call_start|>[write_file(path='a 'b' c', content='e')]<|tool_call_end|>", calls: null },
    { title: 'undeclared', text: '<|tool_call_start|>[reboot_server(force=True)]<|tool_call_end|>', calls: null },
    { title: 'truncated', text: '<|tool_call_start|>[get_weather(city="Antw', calls: null },
    { title: 'not a call list', text: '<|tool_call_start|>get_weather is what I would call<|tool_call_end|>', calls: null },
  ]);
});
